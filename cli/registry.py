"""Where each top-level command lives, so a command imports only what it uses.

Each entry is ``name: (module, attribute, one-line help)``; the help text is kept here so
that ``diceledger --help`` can list every command without importing any of them.
"""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str, str]] = {
    "demo": ("cli.demo", "demo", "Play a whole session on a throw-away store."),
    "db": ("cli.db", "db", "Create, upgrade and inspect the database schema."),
    "session": ("cli.session", "session", "Start, join, list, show and end sessions."),
    "roll": ("cli.rolls", "roll", "Roll dice: a damage or effect roll."),
    "check": ("cli.rolls", "check", "Make a check against a target or a DC."),
    "save": ("cli.rolls", "save", "Make a save against an origin's effect."),
    "opposed": ("cli.rolls", "opposed", "Roll an opposed check, again on a tie."),
    "reroll": ("cli.rolls", "reroll", "Spend rerolls on chosen dice of a waiting roll."),
    "accept": ("cli.rolls", "accept", "Accept a waiting roll as it stands."),
    "reveal": ("cli.rolls", "reveal", "Show a blind roll to the players (GM)."),
    "seed": ("cli.rolls", "seed", "Reveal the session's seed (GM)."),
    "dispute": ("cli.dispute", "dispute", "Dispute a roll, review it and rule on it."),
    "verify": ("cli.verify", "verify", "Prove a session's dice fair and its log untouched."),
    "odds": ("cli.odds", "odds", "Show the exact odds of a roll or check."),
    "replay": ("cli.replay", "replay", "Replay a session as it happened, or as of a moment."),
    "stats": ("cli.stats", "stats", "Show per-player statistics as a table, CSV or JSON."),
    "projections": ("cli.projections", "projections", "Rebuild projections, show checkpoints."),
    "export": ("cli.transfer", "export", "Write a session's events to a JSON Lines file."),
    "import": ("cli.transfer", "import_", "Append an exported file's events to this store."),
}

"""Where each top-level command lives, so a command imports only what it uses.

Each entry is ``name: (module, attribute, one-line help)``; the help text is kept here so
that ``diceledger --help`` can list every command without importing any of them.
"""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str, str]] = {
    "demo": ("diceledger.cli.demo", "demo", "Play a whole session on a throw-away store."),
    "db": ("diceledger.cli.db", "db", "Create, upgrade and inspect the database schema."),
    "session": ("diceledger.cli.session", "session", "Start, join, list, show and end sessions."),
    "campaign": (
        "diceledger.cli.campaign",
        "campaign",
        "Start, show and list campaigns: one group's sessions.",
    ),
    "join": ("diceledger.cli.join", "join", "Join a server's session by its invite link."),
    "logout": ("diceledger.cli.join", "logout", "Forget the tokens kept for a server."),
    "roll": ("diceledger.cli.rolls", "roll", "Roll dice: a damage or effect roll."),
    "check": ("diceledger.cli.rolls", "check", "Make a check against a target or a DC."),
    "save": ("diceledger.cli.rolls", "save", "Make a save against an origin's effect."),
    "opposed": ("diceledger.cli.rolls", "opposed", "Roll an opposed check, again on a tie."),
    "roll-side": (
        "diceledger.cli.rolls",
        "roll_side",
        "Roll your own side of an opposed check that waits for your dice.",
    ),
    "reroll": ("diceledger.cli.rolls", "reroll", "Spend rerolls on chosen dice of a waiting roll."),
    "accept": ("diceledger.cli.rolls", "accept", "Accept a waiting roll as it stands."),
    "reveal": ("diceledger.cli.rolls", "reveal", "Show a blind roll to the players (GM)."),
    "seed": ("diceledger.cli.rolls", "seed", "Reveal the session's seed (GM)."),
    "character": (
        "diceledger.cli.characters",
        "character",
        "Create characters, set their attributes and Qualities, list them.",
    ),
    "dispute": ("diceledger.cli.dispute", "dispute", "Dispute a roll, review it and rule on it."),
    "verify": (
        "diceledger.cli.verify",
        "verify",
        "Prove a session's dice fair and its log untouched.",
    ),
    "keys": ("diceledger.cli.keys", "keys", "List the signing keys, or rotate to a new one."),
    "odds": ("diceledger.cli.odds", "odds", "Show the exact odds of a roll or check."),
    "checkpoint": (
        "diceledger.cli.receipts",
        "checkpoint",
        "Print a session's latest signed checkpoint, to keep.",
    ),
    "receipt": (
        "diceledger.cli.receipts",
        "receipt",
        "Print a roll's receipt: a proof anyone can check offline.",
    ),
    "replay": (
        "diceledger.cli.replay",
        "replay",
        "Replay a session as it happened, or as of a moment.",
    ),
    "stats": (
        "diceledger.cli.stats",
        "stats",
        "Show per-player statistics as a table, CSV or JSON.",
    ),
    "projections": (
        "diceledger.cli.projections",
        "projections",
        "Rebuild projections, show checkpoints.",
    ),
    "export": (
        "diceledger.cli.transfer",
        "export",
        "Write a session's events to a JSON Lines file.",
    ),
    "serve": ("diceledger.cli.serve", "serve", "Serve the session API over HTTP."),
    "discord": ("diceledger.cli.discord", "discord", "Register the /dl command with Discord."),
    "import": (
        "diceledger.cli.transfer",
        "import_",
        "Append an exported file's events to this store.",
    ),
}

"""Where each top-level command lives, so a command imports only what it uses.

Each entry is ``name: (module, attribute, one-line help)``; the help text is kept here so
that ``diceledger --help`` can list every command without importing any of them.
"""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str, str]] = {
    "db": ("cli.db", "db", "Create, upgrade and inspect the database schema."),
}

"""How the command line words the error tree: one line, with a hint where one helps."""

from __future__ import annotations

from diceledger.domain.errors import (
    DiceledgerError,
    NotAMemberError,
    SchemaOutdatedError,
    UnknownSessionError,
    UnsignedHistoryError,
)


def message_for(error: DiceledgerError) -> str:
    """Return the one line the CLI prints for ``error``."""
    match error:
        case NotAMemberError(session_id=session_id):
            return f"{error}; `diceledger session join {session_id}` first"
        case UnknownSessionError():
            return f"{error}; `diceledger session list` shows yours"
        case UnsignedHistoryError(session_id=session_id):
            return (
                f"{error}; if they are genuine (recorded before this store signed its logs, "
                "or by a process that stopped before signing), an operator may sign them: "
                f"`diceledger db adopt {session_id}`"
            )
        case SchemaOutdatedError():
            return f"{error}; run `diceledger db upgrade`"
        case _:
            return str(error)

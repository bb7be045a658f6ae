"""The one error hierarchy of diceledger.

Every error a user can meet is a ``DiceledgerError``; the CLI turns each into a
one-line message and an exit code, never a traceback.

    DiceledgerError
    ├── DiceNotationError        a roll expression that breaks R1/R2 (points at a column)
    ├── RollError                a request the rules refuse (advantage on a plain roll, ...)
    │   └── RerollError          allowance spent, out of scope, die not rerollable (R11)
    ├── DiceSourceError          a dice source that cannot give the die asked for
    │   ├── ManualFacesError     typed-in faces: out of range, too few, too many
    │   └── ExplosionChainError  a chain past the cap: a broken random source (R12)
    ├── CommandRefusedError      a session command refused; nothing is appended
    │   ├── NotFoundError        unknown session, roll or member
    │   ├── PermissionDeniedError  not a member, not the GM
    │   └── InvalidInputError    text or a value the session cannot take (control
    │                            characters, over its limit, a look-alike name)
    ├── StoreError               the event store cannot do what was asked
    │   ├── ConcurrencyError     expected version differs from the stream's (retryable)
    │   ├── StoreUnavailableError  unreachable, wrong URL, locked past the timeout,
    │   │   │                    not a database or a damaged one
    │   │   ├── SchemaNewerError   the database was written by a newer diceledger
    │   │   └── ReadOnlyError      the database may be read but not written
    │   ├── SchemaOutdatedError  the database is behind the code; run `db upgrade`
    │   └── IntegrityError       a stored or imported log fails its own checks
    └── VerificationError        a session or export fails `verify`
"""

from __future__ import annotations


class DiceledgerError(Exception):
    """Base of every error diceledger raises on purpose."""


class DiceNotationError(DiceledgerError):
    """A roll expression that cannot be parsed or breaks a limit."""

    def __init__(self, message: str, column: int | None = None) -> None:
        self.reason = message
        self.column = column
        super().__init__(message if column is None else f"{message} at column {column}")


class RollError(DiceledgerError):
    """A roll or check request that the rules refuse."""


class RerollError(RollError):
    """A reroll that the allowance, its scope or the die does not permit."""


class DiceSourceError(DiceledgerError):
    """A dice source that cannot supply the die asked for."""


class ManualFacesError(DiceSourceError):
    """Typed-in faces that do not fit the dice the roll needs."""


class ExplosionChainError(DiceSourceError):
    """An explosion chain longer than the cap; the random source is broken."""


class CommandRefusedError(DiceledgerError):
    """A session command refused by the aggregate; nothing is appended."""


class NotFoundError(CommandRefusedError):
    """An unknown session, roll, action or member."""


def unknown_session(session_id: str) -> NotFoundError:
    """Return the error for a session id that names no session, with where to look."""
    return NotFoundError(f"unknown session '{session_id}'; `diceledger session list` shows yours")


class PermissionDeniedError(CommandRefusedError):
    """The actor may not do this (not a member, not the GM)."""


class InvalidInputError(CommandRefusedError):
    """A value the session cannot take: bad characters, over its limit, a look-alike."""


class StoreError(DiceledgerError):
    """The event store cannot do what was asked."""


class ConcurrencyError(StoreError):
    """The stream's current version differs from the expected one."""


class StoreUnavailableError(StoreError):
    """The database is unreachable, misnamed or locked past the timeout."""


class SchemaNewerError(StoreUnavailableError):
    """The database schema is at a revision this release does not know (a newer one)."""


class ReadOnlyError(StoreUnavailableError):
    """The database can be read but not written (a read-only file or transaction)."""


class SchemaOutdatedError(StoreError):
    """The database schema is behind the code."""


class IntegrityError(StoreError):
    """A stored or imported log fails its own checks (hash chain, versions)."""


class VerificationError(DiceledgerError):
    """A session or an export fails verification."""

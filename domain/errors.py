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
    │   └── PermissionDeniedError  not a member, not the GM
    ├── StoreError               the event store cannot do what was asked
    │   ├── ConcurrencyError     expected version differs from the stream's (retryable)
    │   ├── StoreUnavailableError  unreachable, wrong URL, locked past the timeout
    │   ├── SchemaOutdatedError  the database is behind the code; run `db upgrade`
    │   └── IntegrityError       a stored or imported log fails its own checks
    │       └── LogTamperedError  rows the server did not append; it refuses to sign them
    ├── KeyFileError             a signing or seed key file: unreadable, malformed, too open
    └── VerificationError        a session or export fails `verify`
        ├── MalformedError       a checkpoint, signed note or receipt that breaks its format
        ├── SignatureError       no trusted key's signature verifies
        └── ProofError           a Merkle proof or root that does not hold
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


class StoreError(DiceledgerError):
    """The event store cannot do what was asked."""


class ConcurrencyError(StoreError):
    """The stream's current version differs from the expected one."""


class StoreUnavailableError(StoreError):
    """The database is unreachable, misnamed or locked past the timeout."""


class SchemaOutdatedError(StoreError):
    """The database schema is behind the code."""


class IntegrityError(StoreError):
    """A stored or imported log fails its own checks (hash chain, versions)."""


class LogTamperedError(IntegrityError):
    """A stream holds rows the server did not append (or lost rows it signed)."""


class KeyFileError(DiceledgerError):
    """A key file that cannot be used: unreadable, malformed or open to other users."""


class VerificationError(DiceledgerError):
    """A session or an export fails verification."""


class MalformedError(VerificationError):
    """A checkpoint, signed note, verifier key or receipt that breaks its format."""


class SignatureError(VerificationError):
    """No signature by a trusted key verifies."""


class ProofError(VerificationError):
    """A Merkle inclusion or consistency proof, or a root, that does not hold."""

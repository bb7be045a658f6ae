"""The one error hierarchy of diceledger.

Every error a user can meet is a ``DiceledgerError``. The application raises the most
specific one; each face words it once, in one place (the CLI as one line and an exit code,
with its own hints; HTTP as problem+json with a stable type). Messages here name no command
of any face.

    DiceledgerError
    ├── InvalidInputError        a value no command accepts: malformed, out of bounds, not encodable
    │   ├── DiceNotationError    a roll expression that breaks R1/R2 (points at a column)
    │   └── KeyReusedError       an idempotency key sent again with another request
    ├── CommandRefusedError      the session's state refuses the command; nothing is appended
    │   ├── RollError            a roll request the rules refuse (advantage on a plain roll, ...)
    │   │   └── RerollError      allowance spent, out of scope, die not rerollable (R11)
    │   │       └── TurnPassedError  meant for a turn of an opposed check that has passed
    │   ├── NotFoundError        unknown session, roll or member
    │   │   └── UnknownSessionError  a session id that names no session
    │   └── PermissionDeniedError  forbidden: not the GM, not this roll's roller
    │       └── NotAMemberError  someone who has not joined the session
    ├── UnauthenticatedError     no credential, or one unknown, revoked or expired
    ├── ConflictError            another writer changed the stream first; a retry may succeed
    │   ├── ConcurrencyError     expected version differs from the stream's
    │   └── RequestInProgressError  a retried request whose first attempt is still running
    ├── CorruptLogError          a stored or imported log fails its own checks
    │   └── LogTamperedError     rows the server did not append; it refuses to sign them
    │       └── UnsignedHistoryError  rows past the last signature that continue its chain
    ├── DiceSourceError          a dice source that cannot give the die asked for
    │   ├── ManualFacesError     typed-in faces: out of range, too few, too many
    │   └── ExplosionChainError  a chain past the cap: a broken random source (R12)
    ├── StoreError               the database cannot be used as asked
    │   ├── StoreUnavailableError  unreachable, wrong URL, locked past the timeout,
    │   │   │                    not a database or a damaged one
    │   │   ├── SchemaNewerError   the database was written by a newer diceledger
    │   │   └── ReadOnlyError      the database may be read but not written
    │   ├── SessionBusyError     another connection holds the session's lock past the wait
    │   └── SchemaOutdatedError  the database schema is behind the code
    ├── KeyFileError             a signing or seed key file: unreadable, malformed, too open
    ├── RemoteServiceError       a service diceledger calls out to refused, or was unreachable
    ├── ServerBusyError          costly work already running: nothing done, try again later
    └── VerificationError        a session or export fails `verify`
        ├── MalformedError       a checkpoint, signed note or receipt that breaks its format
        ├── SignatureError       no trusted key's signature verifies
        └── ProofError           a Merkle proof or root that does not hold
"""

from __future__ import annotations


class DiceledgerError(Exception):
    """Base of every error diceledger raises on purpose."""


class InvalidInputError(DiceledgerError):
    """A value no command accepts: malformed, out of bounds or not encodable."""


class DiceNotationError(InvalidInputError):
    """A roll expression that cannot be parsed or breaks a limit."""

    def __init__(self, message: str, column: int | None = None) -> None:
        self.reason = message
        self.column = column
        super().__init__(message if column is None else f"{message} at column {column}")


class KeyReusedError(InvalidInputError):
    """An idempotency key sent again with a different request."""


class UnauthenticatedError(DiceledgerError):
    """No credential, or one that is unknown, revoked or expired."""


class CommandRefusedError(DiceledgerError):
    """A session command refused by the aggregate; nothing is appended."""


class RollError(CommandRefusedError):
    """A roll or check request that the rules refuse."""


class RerollError(RollError):
    """A reroll that the allowance, its scope or the die does not permit."""


class TurnPassedError(RerollError):
    """A reroll or accept meant for a turn of an opposed check that is no longer current."""


class NotFoundError(CommandRefusedError):
    """An unknown session, roll, action or member."""


class UnknownSessionError(NotFoundError):
    """A session id that names no session (in this store, or for this member)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"unknown session '{session_id}'")
        self.session_id = session_id


def unknown_session(session_id: str) -> UnknownSessionError:
    """Return the error for a session id that names no session."""
    return UnknownSessionError(session_id)


class PermissionDeniedError(CommandRefusedError):
    """The actor may not do this (not the GM, not the roller)."""


class NotAMemberError(PermissionDeniedError):
    """The actor has not joined the session."""

    def __init__(self, actor: str, session_id: str) -> None:
        super().__init__(f"{actor} is not in session '{session_id}'")
        self.session_id = session_id


class ConflictError(DiceledgerError):
    """Another writer changed what the command read; deciding again may succeed."""


class ConcurrencyError(ConflictError):
    """The stream's current version differs from the expected one."""


class RequestInProgressError(ConflictError):
    """A retried request whose first attempt has not answered yet."""


class CorruptLogError(DiceledgerError):
    """A stored or imported log fails its own checks (hash chain, versions, decoding)."""


class LogTamperedError(CorruptLogError):
    """A stream holds rows the server did not append (or lost rows it signed)."""


class UnsignedHistoryError(LogTamperedError):
    """A stream holds events past its last signed checkpoint that no append of this server made.

    Sessions recorded before the server signed its logs look like this, and so do events
    whose process stopped between appending and signing, and rows forged by another path.
    Only an operator can tell them apart; the application never signs them by itself.
    """

    def __init__(self, session_id: str, first: int, last: int) -> None:
        super().__init__(
            f"session '{session_id}' holds versions {first} to {last}, which this server did "
            "not append; refusing to sign"
        )
        self.session_id = session_id


class DiceSourceError(DiceledgerError):
    """A dice source that cannot supply the die asked for."""


class ManualFacesError(DiceSourceError):
    """Typed-in faces that do not fit the dice the roll needs."""


class ExplosionChainError(DiceSourceError):
    """An explosion chain longer than the cap; the random source is broken."""


class StoreError(DiceledgerError):
    """The database cannot be used as asked."""


class StoreUnavailableError(StoreError):
    """The database is unreachable, misnamed or locked past the timeout."""


class SchemaNewerError(StoreUnavailableError):
    """The database schema is at a revision this release does not know (a newer one)."""


class ReadOnlyError(StoreUnavailableError):
    """The database can be read but not written (a read-only file or transaction)."""


class ServerBusyError(DiceledgerError):
    """Costly work of the kind asked for already runs in this worker; nothing was done."""

    def __init__(self, what: str, retry_after: int) -> None:
        self.retry_after = retry_after  # whole seconds
        super().__init__(f"the server is busy with {what}; try again in {retry_after} s")


class SessionBusyError(StoreError):
    """Another connection held the session's lock past the wait; nothing was written."""

    def __init__(self, session_id: str, retry_after: int) -> None:
        self.session_id = session_id
        self.retry_after = retry_after  # whole seconds
        super().__init__(
            f"session '{session_id}' is busy: another connection holds its lock; "
            f"nothing was recorded, try again in {retry_after} s"
        )


class SchemaOutdatedError(StoreError):
    """The database schema is behind the code."""


class KeyFileError(DiceledgerError):
    """A key file that cannot be used: unreadable, malformed or open to other users."""


class RemoteServiceError(DiceledgerError):
    """A service diceledger calls out to (Discord's API) refused the call or was unreachable."""


class VerificationError(DiceledgerError):
    """A session or an export fails verification."""


class MalformedError(VerificationError):
    """A checkpoint, signed note, verifier key or receipt that breaks its format."""


class SignatureError(VerificationError):
    """No signature by a trusted key verifies."""


class ProofError(VerificationError):
    """A Merkle inclusion or consistency proof, or a root, that does not hold."""

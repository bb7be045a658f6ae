"""How the HTTP face words the error tree: application/problem+json (RFC 9457).

Each branch of the tree has a stable ``type`` (a relative URI under /problems/) and one
status; the message is the error's own line. The most specific branch wins. The detail
and the instance quote what a caller sent, so their control and direction characters
are escaped (``domain.shown``) before any client shows them.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from starlette.responses import Response

from diceledger.domain.errors import (
    CommandRefusedError,
    ConflictError,
    CorruptLogError,
    DiceledgerError,
    DiceNotationError,
    DiceSourceError,
    InvalidInputError,
    KeyReusedError,
    LogTamperedError,
    ManualFacesError,
    NotAMemberError,
    NotFoundError,
    PermissionDeniedError,
    RequestInProgressError,
    RollError,
    ServerBusyError,
    SessionBusyError,
    StoreError,
    UnauthenticatedError,
    UnknownSessionError,
    VerificationError,
)
from diceledger.domain.shown import shown

PROBLEM_JSON = "application/problem+json"


@dataclass(frozen=True, slots=True)
class Problem:
    """One kind of problem: its status, stable type name and title."""

    status: int
    slug: str
    title: str

    @property
    def type(self) -> str:
        """Return the problem's type URI."""
        return f"/problems/{self.slug}"


# Most specific first: the first class an error is an instance of decides.
PROBLEMS: tuple[tuple[type[DiceledgerError], Problem], ...] = (
    (UnauthenticatedError, Problem(401, "unauthenticated", "Authentication required")),
    (KeyReusedError, Problem(422, "idempotency-key-reused", "Idempotency-Key reused")),
    (DiceNotationError, Problem(422, "dice-notation", "Invalid dice notation")),
    (InvalidInputError, Problem(422, "invalid-input", "Invalid input")),
    (UnknownSessionError, Problem(404, "unknown-session", "Unknown session")),
    (NotFoundError, Problem(404, "not-found", "Not found")),
    (NotAMemberError, Problem(403, "not-a-member", "Not a member of the session")),
    (PermissionDeniedError, Problem(403, "forbidden", "Forbidden")),
    (RollError, Problem(422, "roll-refused", "The rules refuse this roll")),
    (CommandRefusedError, Problem(409, "command-refused", "The session refuses this command")),
    (RequestInProgressError, Problem(409, "request-in-progress", "Request still in progress")),
    (ConflictError, Problem(409, "conflict", "Conflicting write")),
    (ManualFacesError, Problem(422, "manual-faces", "Typed-in faces do not fit")),
    (DiceSourceError, Problem(500, "dice-source", "The dice source failed")),
    (LogTamperedError, Problem(409, "log-tampered", "The log was changed by another path")),
    (CorruptLogError, Problem(500, "corrupt-log", "The session's log fails its own checks")),
    (VerificationError, Problem(422, "verification-failed", "Verification failed")),
    (SessionBusyError, Problem(503, "session-busy", "The session is busy")),
    (ServerBusyError, Problem(503, "server-busy", "The server is busy")),
    (StoreError, Problem(503, "store-unavailable", "The store is unavailable")),
)
FALLBACK = Problem(500, "internal", "Internal error")

# Problems the HTTP face raises itself, outside the error tree.
BAD_REQUEST = Problem(400, "bad-request", "Bad request")
TOO_LARGE = Problem(413, "payload-too-large", "Request body too large")
RATE_LIMITED = Problem(429, "rate-limited", "Too many requests")
VALIDATION = Problem(422, "invalid-input", "Invalid input")


def problem_for(error: DiceledgerError) -> Problem:
    """Return the problem an error of the tree is answered with."""
    return next((p for kind, p in PROBLEMS if isinstance(error, kind)), FALLBACK)


def new_request_id() -> str:
    """Return a fresh id that ties a server failure's answer to its line in the log."""
    return secrets.token_hex(8)


def problem_body(
    problem: Problem, detail: str, instance: str | None = None, request_id: str | None = None
) -> str:
    """Return the problem+json document as text; a server failure's names its request."""
    document: dict[str, str | int] = {
        "type": problem.type,
        "title": problem.title,
        "status": problem.status,
        "detail": shown(detail),
    }
    if instance is not None:
        document["instance"] = shown(instance)
    if request_id is not None:
        document["request_id"] = request_id
    return json.dumps(document, ensure_ascii=False)


def problem_response(
    problem: Problem,
    detail: str,
    instance: str | None = None,
    headers: dict[str, str] | None = None,
    request_id: str | None = None,
) -> Response:
    """Return a problem+json response."""
    extra = dict(headers or {})
    if problem.status == 401:
        extra.setdefault("WWW-Authenticate", 'Bearer realm="diceledger"')
    return Response(
        problem_body(problem, detail, instance, request_id),
        status_code=problem.status,
        media_type=PROBLEM_JSON,
        headers=extra,
    )

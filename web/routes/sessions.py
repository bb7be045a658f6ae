"""Sessions: open one, invite, join, show, members, reveal the seed, end."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Request
from starlette.responses import Response

from diceledger.domain.hashchain import format_timestamp
from diceledger.web.answers import answer, typed
from diceledger.web.auth import Member
from diceledger.web.context import Services
from diceledger.web.idempotent import HEADER as IDEMPOTENCY_KEY
from diceledger.web.idempotent import run_once
from diceledger.web.openapi import (
    BODY,
    COMMAND,
    FAILS,
    INPUT,
    LIMITED,
    MEMBER,
    STORE,
    answers,
    idempotency_key,
)
from diceledger.web.responses import (
    Invite,
    Joined,
    OpenedSession,
    SeedRevealed,
    SessionEnded,
    SignInCode,
)
from diceledger.web.roll_responses import SessionAnswer
from diceledger.web.routes.joining import redeem
from diceledger.web.schemas import JoinRequest, NewInvite, NewSession

router = APIRouter(prefix="/api/v1/sessions", tags=["sessions"])
MEMBER_COMMAND = answers(FAILS, STORE, MEMBER, BODY, COMMAND)


@router.post(
    "", status_code=201, response_model=OpenedSession, responses=answers(FAILS, STORE, BODY)
)
def open_session(body: NewSession, web: Services) -> Response:
    """Open a session; its creator is the GM. The GM's token is shown this once."""
    opened = web.access.open_session(body.title, body.name, not body.forbid_manual)
    started = opened.started
    return typed(
        OpenedSession(
            session_id=started.session_id,
            title=started.title,
            gm=started.gm,
            gm_token=opened.gm_token,
            commitment=started.commitment,
            checkpoint=started.checkpoint,
        ),
        201,
    )


# An unusable code is 403, an unknown session 404, a name taken 409.
@router.post(
    "/{session_id}/join",
    status_code=201,
    response_model=Joined,
    responses=answers(FAILS, STORE, BODY, COMMAND, LIMITED, (403, 404)),
    openapi_extra=idempotency_key(required=False),
)
def join(session_id: str, body: JoinRequest, request: Request, web: Services) -> Response:
    """Join with an invite code; the player's token is shown this once.

    Repeating the request with the same Idempotency-Key and code gives the same member a
    fresh token (the first may have been lost on the way), never a second member.
    """
    return redeem(web, session_id, body, request.headers.get(IDEMPOTENCY_KEY))


@router.get(
    "/{session_id}", response_model=SessionAnswer, responses=answers(FAILS, STORE, MEMBER, INPUT)
)
def show(session_id: str, member: Member, web: Services) -> Response:
    """Return the session as its member may see it."""
    return answer(web.app.session(member.member, session_id).view)


@router.post(
    "/{session_id}/seed/reveal",
    response_model=SeedRevealed,
    responses=MEMBER_COMMAND,
    openapi_extra=idempotency_key(required=False),
)
def reveal_seed(session_id: str, member: Member, request: Request, web: Services) -> Response:
    """Reveal the current seed (GM) and commit to a new one."""

    def revealed() -> SeedRevealed:
        return SeedRevealed(**web.app.reveal_seed(member.member, session_id).answer())

    return run_once(request, web, member.token_id, None, revealed)


@router.post(
    "/{session_id}/end",
    response_model=SessionEnded,
    responses=MEMBER_COMMAND,
    openapi_extra=idempotency_key(required=False),
)
def end(session_id: str, member: Member, request: Request, web: Services) -> Response:
    """End the session (GM): waiting rolls resolve as they stand, the seed is revealed."""

    def ended() -> SessionEnded:
        return SessionEnded(**web.app.end_session(member.member, session_id).answer())

    return run_once(request, web, member.token_id, None, ended)


def invite_json(session_id: str, code: str, expires: str) -> Invite:
    """Return an invite as the API shows it."""
    return Invite(
        session_id=session_id, invite_code=code, join_path=f"/join/{code}", expires_at=expires
    )


@router.post(
    "/{session_id}/invites", status_code=201, response_model=Invite, responses=MEMBER_COMMAND
)
def create_invite(
    session_id: str, member: Member, web: Services, body: NewInvite | None = None
) -> Response:
    """Create a single-use, expiring invite (GM). The code is shown this once.

    Not replayed by Idempotency-Key: an answer holding a secret is never stored, and a
    second invite made by a retry is harmless.
    """
    ttl = timedelta(minutes=(body or NewInvite()).expires_in_minutes)

    made = web.access.invite(member, ttl)
    return typed(invite_json(session_id, made.code, format_timestamp(made.expires_at)), 201)


@router.post(
    "/{session_id}/sign-in-codes",
    status_code=201,
    response_model=SignInCode,
    responses=MEMBER_COMMAND,
)
def create_sign_in_code(session_id: str, member: Member, web: Services) -> Response:
    """Create a one-time code that signs this member in on another browser (shown once)."""
    made = web.access.sign_in_code(member)
    return typed(
        SignInCode(
            session_id=session_id,
            name=member.member,
            sign_in_path=f"/sign-in/{made.code}",
            expires_at=format_timestamp(made.expires_at),
        ),
        201,
    )

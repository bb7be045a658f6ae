"""Members, for the GM: list them, sign one in, revoke their tokens, make a player a co-GM."""

from __future__ import annotations

from fastapi import APIRouter, Path
from starlette.responses import Response

from diceledger.domain.hashchain import format_timestamp
from diceledger.infra.app.roll_form import MAX_TEXT
from diceledger.web.answers import typed
from diceledger.web.auth import Member
from diceledger.web.context import Services
from diceledger.web.openapi import BODY, COMMAND, FAILS, INPUT, MEMBER, STORE, answers
from diceledger.web.responses import CoGm, Members, MemberTokens, Revoked, SignInCode

router = APIRouter(
    prefix="/api/v1/sessions/{session_id}/members",
    tags=["members"],
    responses=answers(FAILS, STORE, MEMBER, INPUT),
)
NAME = Path(min_length=1, max_length=MAX_TEXT)


@router.get("", response_model=Members)
def members(session_id: str, member: Member, web: Services) -> Response:
    """List the members with their roles and live tokens (GM)."""
    listed = [
        MemberTokens(name=m.name, role=m.role, live_tokens=m.live_tokens)
        for m in web.access.members(member)
    ]
    return typed(Members(session_id=session_id, members=listed))


# A name may hold "/" (sent as %2F): it is the whole path between members/ and the action.
@router.post("/{name:path}/revoke", response_model=Revoked, responses=answers(BODY, COMMAND))
def revoke(session_id: str, member: Member, web: Services, name: str = NAME) -> Response:
    """Revoke every token of a member (GM); they keep their place in the log."""
    revoked = web.access.revoke(member, name)
    return typed(Revoked(session_id=session_id, name=name, revoked_tokens=revoked))


@router.post(
    "/{name:path}/sign-in-codes",
    status_code=201,
    response_model=SignInCode,
    responses=answers(BODY, COMMAND),
)
def create_sign_in_code_for(
    session_id: str, member: Member, web: Services, name: str = NAME
) -> Response:
    """Create a one-time link that signs a member in (GM): their way back in (shown once)."""
    made = web.access.sign_in_code_for(member, name)
    return typed(
        SignInCode(
            session_id=session_id,
            name=name,
            sign_in_path=f"/sign-in/{made.code}",
            expires_at=format_timestamp(made.expires_at),
        ),
        201,
    )


@router.post("/{name:path}/co-gm", response_model=CoGm, responses=answers(BODY, COMMAND))
def make_co_gm(session_id: str, member: Member, web: Services, name: str = NAME) -> Response:
    """Make a player a co-GM (GM)."""
    made = web.access.make_co_gm(member, name)
    joined = made.member
    return typed(
        CoGm(
            session_id=session_id,
            name=joined.name,
            role="gm",
            checkpoint=made.checkpoint,
        )
    )

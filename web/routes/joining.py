"""Join by an invite code alone: the code names its session, as the invite link does.

A client handed only an invite link (`/join/{code}`) does not know the session's id; this
route redeems the code for the session it was made for and says which session that is.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from diceledger.web.answers import typed
from diceledger.web.context import Services, WebServices
from diceledger.web.idempotent import HEADER as IDEMPOTENCY_KEY
from diceledger.web.openapi import BODY, COMMAND, FAILS, LIMITED, STORE, answers, idempotency_key
from diceledger.web.responses import Joined
from diceledger.web.schemas import JoinRequest

router = APIRouter(prefix="/api/v1", tags=["sessions"])


# An unusable code is 403, a name taken 409.
@router.post(
    "/join",
    status_code=201,
    response_model=Joined,
    responses=answers(FAILS, STORE, BODY, COMMAND, LIMITED, (403,)),
    openapi_extra=idempotency_key(required=False),
)
def join_by_code(body: JoinRequest, request: Request, web: Services) -> Response:
    """Join the session an invite code was made for; the player's token is shown this once.

    Repeating the request with the same Idempotency-Key and code gives the same member a
    fresh token (the first may have been lost on the way), never a second member.
    """
    key = request.headers.get(IDEMPOTENCY_KEY)
    return redeem(web, web.access.joining_session(body.invite_code, key), body, key)


def redeem(web: WebServices, session_id: str, body: JoinRequest, key: str | None) -> Response:
    """Redeem an invite of ``session_id`` (within its rate limit); answer the new player."""
    web.limits.use(f"join:{session_id}", web.settings.redemptions_per_minute, "invite codes")
    joined = web.access.join(session_id, body.invite_code, body.name, body.client_seed, key)
    return typed(
        Joined(
            session_id=session_id,
            player_token=joined.token,
            name=joined.name,
            role=joined.role,
            checkpoint=joined.checkpoint,
        ),
        201,
    )

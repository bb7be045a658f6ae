"""`POST /discord/interactions`: where Discord sends every `/dl` command and button click."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse, Response

from diceledger.web.context import Services
from diceledger.web.discord.payload import Ping, parse_interaction
from diceledger.web.discord.replies import ResponseType
from diceledger.web.discord.signature import SIGNATURE_HEADER, TIMESTAMP_HEADER
from diceledger.web.openapi import BODY, FAILS, STORE, answers
from diceledger.web.problems import Problem, problem_response
from diceledger.web.responses import DiscordReply

router = APIRouter(tags=["discord"])
NOT_CONFIGURED = Problem(404, "not-found", "Not found")


# Discord signs its requests: anything else is 401; without a configured application, 404.
@router.post(
    "/discord/interactions",
    response_model=DiscordReply,
    responses=answers(FAILS, STORE, BODY, (401, 404)),
)
async def interactions(request: Request, web: Services) -> Response:
    """Answer an interaction signed by the configured Discord application (else 401)."""
    face = web.discord
    if face is None:
        return problem_response(NOT_CONFIGURED, "no Discord application is configured", "")
    body = await request.body()  # the exact bytes Discord signed, before any parsing
    headers = request.headers
    face.signatures.check(headers.get(SIGNATURE_HEADER), headers.get(TIMESTAMP_HEADER), body)
    interaction = parse_interaction(body)
    if isinstance(interaction, Ping):
        return JSONResponse({"type": int(ResponseType.PONG)})
    return await face.answerer.respond(interaction)

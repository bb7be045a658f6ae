"""Reads of one session: replay (also as of a moment), statistics, verify, export."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from pydantic import AwareDatetime
from starlette.responses import Response, StreamingResponse

from diceledger.domain.json import JsonValue
from diceledger.domain.projections.tidy import reports_json, tidy_csv
from diceledger.infra.app.results import Moment
from diceledger.infra.app.roll_form import MAX_TEXT
from diceledger.web.answers import answer
from diceledger.web.auth import Member
from diceledger.web.context import Services
from diceledger.web.openapi import (
    FAILS,
    INPUT,
    MEMBER,
    STORE,
    JsonLinesAnswer,
    also_answers,
    answers,
)
from diceledger.web.responses import Replay, Statistics, Verification
from diceledger.web.schemas import AS_ISO_TIME, AS_WRITTEN

CSV = "text/csv"
TIDY_CSV = "Tidy CSV: one row a value (session_id,player,group,die,face,metric,value)"
EXPORT = also_answers(
    JsonLinesAnswer.media_type,
    {
        "type": "string",
        "description": "JSON Lines: one exported event a line, as /api/v1/schema/events says",
    },
)

router = APIRouter(
    prefix="/api/v1/sessions/{session_id}",
    tags=["reads"],
    responses=answers(FAILS, STORE, MEMBER, INPUT),
)


@router.get("/replay", response_model=Replay)
def replay(
    session_id: str,
    member: Member,
    web: Services,
    until_position: Annotated[int | None, Query(ge=0), AS_WRITTEN] = None,
    at: Annotated[
        AwareDatetime | None, Query(description="ISO 8601 with a UTC offset"), AS_ISO_TIME
    ] = None,
) -> Response:
    """Return the session as it happened, or as it stood at a store position or a time."""
    result = web.app.replay(member.member, session_id, Moment(until_position, at))
    lines: list[JsonValue] = [line.as_json() for line in result.lines]
    return answer({"session_id": session_id, "lines": lines, "as_of": result.as_of})


@router.get(
    "/stats",
    response_model=Statistics,
    responses=also_answers(CSV, {"type": "string", "description": TIDY_CSV}),
)
def stats(
    session_id: str,
    member: Member,
    web: Services,
    player: str | None = Query(default=None, max_length=MAX_TEXT),
    format: Literal["json", "csv"] = "json",
) -> Response:
    """Return per-player statistics of the session, as JSON or tidy CSV."""
    result = web.app.statistics(member.member, session_id, player)
    if format == "csv":
        return Response(tidy_csv(result.reports), media_type=f"{CSV}; charset=utf-8")
    return answer(reports_json(result.reports, member.member))


@router.get("/verify", response_model=Verification)
def verify(session_id: str, member: Member, web: Services) -> Response:
    """Verify the session: chain, nonces, commitments, every die and outcome."""
    return answer(web.app.verify_session(session_id).as_dict())


@router.get("/export", response_class=JsonLinesAnswer, responses=EXPORT)
def export(session_id: str, member: Member, web: Services) -> StreamingResponse:
    """Return the session's events as JSON Lines; with hidden blind rolls, only to a GM."""
    exported = web.app.export(member.member, session_id)
    return StreamingResponse(exported.lines, media_type="application/jsonl; charset=utf-8")

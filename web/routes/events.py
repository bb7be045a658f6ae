"""The live stream of one session: Server-Sent Events, resumable by stream version."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.errors import DiceledgerError, InvalidInputError
from diceledger.domain.signed_note import SignedNote
from diceledger.web.auth import Member, bearer_token
from diceledger.web.context import Services, WebServices
from diceledger.web.limits import per_member
from diceledger.web.live import EventStream, SignedHead, StreamPlan
from diceledger.web.openapi import FAILS, INPUT, LIMITED, MEMBER, STORE, answers, stream_answer
from diceledger.web.schemas import AS_WRITTEN

VERSION = re.compile(r"[0-9]{1,18}")

router = APIRouter(
    prefix="/api/v1/sessions/{session_id}",
    tags=["live"],
    responses=answers(FAILS, STORE, MEMBER, INPUT, LIMITED),
)


@router.get("/events", status_code=200, response_class=EventStream, responses=stream_answer())
async def events(
    session_id: str,
    member: Member,
    request: Request,
    web: Services,
    after: Annotated[
        int | None, Query(ge=0, description="first connection: resume after"), AS_WRITTEN
    ] = None,
) -> EventStream:
    """Stream the session's events as the member may see them (Server-Sent Events).

    Each event's id is its stream version; a reconnecting client's Last-Event-ID (or, on a
    first connection, ``?after=``) resumes after that version, so nothing is lost or repeated.
    Each new signed checkpoint follows the events it covers, as ``event: checkpoint``.
    """
    resume = _last_event_id(request)
    feed = await run_in_threadpool(web.app.follow, member.member, session_id)
    slot = per_member("streams", member)
    web.limits.open_stream(slot, web.settings.streams_per_token)
    plan = StreamPlan(
        session_id,
        feed,
        resume if resume is not None else after or 0,
        web.settings.heartbeat_seconds,
        _still_allowed(web, bearer_token(request, session_id), session_id),
        lambda: web.limits.close_stream(slot),
        _head_of,
    )
    return EventStream(plan, web.live.wakeups)


def _last_event_id(request: Request) -> int | None:
    header = request.headers.get("last-event-id", "").strip()
    if not header:
        return None
    if not VERSION.fullmatch(header):
        raise InvalidInputError("Last-Event-ID must be a stream version (a whole number)")
    return int(header)


@lru_cache(maxsize=256)
def _head_of(note: str) -> SignedHead:
    # Read once per note: a worker's streams of a session all send the same checkpoints.
    return SignedHead(Checkpoint.parse(SignedNote.parse(note).text).size, note)


def _still_allowed(web: WebServices, token: str | None, session_id: str) -> Callable[[], bool]:
    def check() -> bool:
        try:
            web.access.in_session(web.access.authenticate(token), session_id)
        except DiceledgerError:
            return False
        return True

    return check

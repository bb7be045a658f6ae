"""A session's live stream as Server-Sent Events: the wire format and the loop that feeds it.

Each event is ``id: <stream version>``, ``event: <event type>`` and one ``data:`` line of
JSON ``{"line": <timeline line, as replay shows it>, "roll": <the roll's view, or null>}``.
After the events a new signed checkpoint covers comes ``event: checkpoint`` with
``{"size": <tree size>, "checkpoint": <the signed note>}`` (no id: it resumes nothing).
The loop reads the store whenever the session's wake-up call rings and at least once per
heartbeat, and ends when the client goes, when the worker shuts down, or when the token
it was opened with stops being valid.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import anyio
from anyio import CancelScope
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from diceledger.domain.errors import DiceledgerError
from diceledger.domain.projections.feed import FeedItem
from diceledger.infra.app.feed import SessionFeed, Wakeups

LOG = logging.getLogger("diceledger.live")
RETRY_MS = 2000  # how long a browser waits before reconnecting
HEARTBEAT = ": heartbeat\n\n"
HEADERS = {
    "content-type": "text/event-stream",
    "cache-control": "no-store",
    "x-accel-buffering": "no",  # a reverse proxy must pass each event on at once
}


@dataclass(frozen=True, slots=True)
class SignedHead:
    """A session's latest signed checkpoint: its tree size and its signed note, verbatim."""

    size: int
    note: str


def checkpoint_text(head: SignedHead) -> str:
    """Return a signed checkpoint as a Server-Sent Event (without an id)."""
    data = json.dumps({"size": head.size, "checkpoint": head.note}, ensure_ascii=False)
    return f"event: checkpoint\ndata: {data}\n\n"


def event_text(item: FeedItem) -> str:
    """Return one feed item as a Server-Sent Event (its JSON is shared by every stream)."""
    return f"id: {item.version}\nevent: {item.event}\ndata: {item.data}\n\n"


@dataclass(frozen=True, slots=True)
class StreamPlan:
    """What one stream sends and for how long: its feed, where it resumes, its checks."""

    session_id: str
    feed: SessionFeed
    after: int  # send only events with a greater version
    heartbeat_seconds: float
    still_allowed: Callable[[], bool]  # re-checked once per heartbeat, in a thread
    closed: Callable[[], None]  # told once when the stream ends, however it ends
    head_of: Callable[[str], SignedHead]  # a signed checkpoint note's tree size, read


class EventStream(Response):
    """The streaming response: catch up from the plan's version, then follow the session."""

    media_type = "text/event-stream"  # what /openapi.json says the route answers

    def __init__(self, plan: StreamPlan, wakeups: Wakeups) -> None:
        self.plan = plan
        self.wakeups = wakeups
        self.status_code = 200
        self.background = None
        self.init_headers(HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            async with anyio.create_task_group() as group:
                group.start_soon(_cancel_when_gone, receive, group.cancel_scope)
                await self._follow(send)
                group.cancel_scope.cancel()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self.plan.closed()

    async def _follow(self, send: Send) -> None:
        plan = self.plan
        with self.wakeups.subscribe(plan.session_id) as subscription:
            await _send(send, f"retry: {RETRY_MS}\n\n")
            after, last_sent, last_checked = plan.after, time.monotonic(), time.monotonic()
            head_sent: str | None = None
            woken_at = time.monotonic()
            while not subscription.ending:
                due = time.monotonic() - last_checked >= plan.heartbeat_seconds
                try:
                    async with subscription.turn:
                        items = await _read(plan.feed, after, woken_at)
                        # Only new events make a new checkpoint, but for an operator's
                        # adopt: that one is seen at the next heartbeat. A read is a query.
                        head = None
                        if items or head_sent is None or due:
                            note = await _latest_note(plan.feed, woken_at)
                            head = None if note is None else plan.head_of(note)
                except DiceledgerError as error:
                    # The client reconnects after `retry` and resumes where it was.
                    LOG.warning("a live stream of %s ended: %s", plan.session_id, error)
                    return
                chunk = "".join(event_text(item) for item in items)
                after = items[-1].version if items else after
                # A checkpoint goes out only once the stream has read every event it covers.
                if head is not None and head.note != head_sent and head.size <= plan.feed.version:
                    chunk += checkpoint_text(head)
                    head_sent = head.note
                now = time.monotonic()
                if now - last_checked >= plan.heartbeat_seconds:
                    if not await anyio.to_thread.run_sync(plan.still_allowed):
                        return
                    last_checked = now
                if not chunk and now - last_sent >= plan.heartbeat_seconds:
                    chunk = HEARTBEAT
                if chunk:
                    await _send(send, chunk)
                    last_sent = now
                woken = await subscription.wait(plan.heartbeat_seconds - (now - last_sent))
                woken_at = fresh_since(woken, time.monotonic(), plan.heartbeat_seconds)


def fresh_since(woken: bool, now: float, heartbeat_seconds: float) -> float:
    """Return since when a read serves a stream that stopped waiting at ``now``.

    Woken, the session may have news: only a read begun since serves. At a heartbeat,
    which only guards against a wake-up that went missing, any read of the session by this
    worker's streams in the last half heartbeat serves too: a table's streams, whose
    heartbeats fall at different moments, then share one read (and one checkpoint read)
    instead of one each, and a lost wake-up still shows within one and a half heartbeats.
    """
    return now if woken else now - heartbeat_seconds / 2


async def _read(feed: SessionFeed, after: int, woken_at: float) -> list[FeedItem]:
    # Fresh as of the wake-up: the first of this worker's streams of the session to take
    # its turn asks the store in a thread; the others take what it read, in the loop.
    held = feed.held(after, woken_at)
    if held is not None:
        return held
    return await anyio.to_thread.run_sync(feed.read, after, woken_at)


async def _latest_note(feed: SessionFeed, woken_at: float) -> str | None:
    held = feed.held_note(woken_at)
    if held is not None:
        return held.note
    return await anyio.to_thread.run_sync(feed.latest_note, woken_at)


async def _send(send: Send, text: str) -> None:
    await send({"type": "http.response.body", "body": text.encode(), "more_body": True})


async def _cancel_when_gone(receive: Receive, scope: CancelScope) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    scope.cancel()

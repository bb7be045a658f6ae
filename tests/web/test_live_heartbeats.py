"""A table's live streams at their heartbeats share one store read, whatever the moment
each heartbeat falls at; a stream woken by news still reads afresh.

The streams run the server's own loop (``EventStream``) against the worker's shared reads
of a session, with a clock that moves only when a stream's wait ends: each wait is a
heartbeat (or a wake-up) one second after the last, so the five streams' heartbeats fall
at five different moments, as they do at a real table.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import anyio
import pytest
from starlette.types import Message

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.session import commands as cmd
from diceledger.infra.app import feed as feed_module
from diceledger.infra.app.feed import SessionFeed
from diceledger.web import live as live_module
from tests.infra.test_session_tail import VIEWERS, Table, seated_table

HEARTBEAT = 60.0


class Clock:
    """Monotonic time, in seconds, moved on by the streams' waits alone."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


News = Callable[[], None]  # a roll appended, which rings the stream's wake-up


class Waits:
    """One stream's wake-ups: each wait ends a second later, as a heartbeat, or rung by
    ``news`` at the first; after ``rounds`` waits the stream ends."""

    def __init__(self, clock: Clock, turn: anyio.Lock, rounds: int, news: News | None) -> None:
        self.clock, self.turn, self.rounds, self.news = clock, turn, rounds, news

    @property
    def ending(self) -> bool:
        return self.rounds < 0

    async def wait(self, seconds: float) -> bool:
        self.rounds -= 1
        self.clock.now += 1.0
        await anyio.sleep(0)
        news, self.news = self.news, None
        if news is None:
            return False
        news()
        return True


class Wakeups:
    """The worker's wake-ups for one session's streams, which read in turn."""

    def __init__(self, clock: Clock, rounds: int, rings: dict[str, News]) -> None:
        self.clock, self.rounds, self.rings = clock, rounds, rings
        self.turn = anyio.Lock()
        self.opened: list[str] = []

    @contextmanager
    def subscribe(self, session_id: str) -> Iterator[Waits]:
        viewer = VIEWERS[len(self.opened)]
        self.opened.append(viewer)
        yield Waits(self.clock, self.turn, self.rounds, self.rings.get(viewer))


def run_streams(table: Table, rounds: int, rings: dict[str, News]) -> dict[str, str]:
    """Run the five members' streams for ``rounds`` waits each; return what each sent."""
    clock = Clock()
    tails = table.tails()
    wakeups = Wakeups(clock, rounds, rings)
    sent = {viewer: "" for viewer in VIEWERS}
    with pytest.MonkeyPatch.context() as patch:
        fake_time = types.SimpleNamespace(monotonic=clock.monotonic)
        patch.setattr(live_module, "time", fake_time)
        patch.setattr(feed_module, "time", fake_time)

        async def stream(viewer: str) -> None:
            plan = live_module.StreamPlan(
                table.session_id,
                SessionFeed(tails.of(table.session_id), viewer),
                0,
                HEARTBEAT,
                lambda: True,
                lambda: None,
                lambda note: live_module.SignedHead(10**9, note),  # never sent
            )

            async def send(message: Message) -> None:
                body = message.get("body", b"")
                assert isinstance(body, bytes)
                sent[viewer] += body.decode()

            await live_module.EventStream(plan, wakeups)._follow(send)

        async def table_streams() -> None:
            async with anyio.create_task_group() as group:
                for viewer in VIEWERS:
                    group.start_soon(stream, viewer)

        anyio.run(table_streams)
    return sent


def test_a_tables_streams_share_one_read_across_heartbeats_at_different_moments() -> None:
    table = seated_table()
    before = (table.store.stream_reads, table.note_reads)
    sent = run_streams(table, rounds=11, rings={})
    reads = (table.store.stream_reads - before[0], table.note_reads - before[1])
    # A heartbeat's worth of the five streams' heartbeats, 60 moments a second apart: one
    # store read and one checkpoint read per half heartbeat (the streams' first, and one
    # 31 s on) serve them all. Each stream on its own read at every one of its heartbeats.
    assert reads == (2, 2)
    assert all(text.startswith("retry: ") for text in sent.values())


def test_a_stream_woken_by_news_still_reads_it_at_once() -> None:
    table = seated_table()
    rolled: list[int] = []

    def roll() -> None:
        reads = table.store.stream_reads
        check = cmd.RequestRoll(RollKind.CHECK, "1d20+3", target=Target(11))
        table.sessions.execute(table.session_id, "ann", check)
        rolled.append(table.store.stream_reads - reads)  # the command's own, not a stream's

    before = table.store.stream_reads
    # ann's roll rings bob's stream: his read begins after it and holds it, and the other
    # streams, at their heartbeats, take it from that read.
    sent = run_streams(table, rounds=2, rings={"bob": roll})
    assert table.store.stream_reads - before - sum(rolled) == 2  # the opening's and bob's
    assert all("CheckResolved" in text for text in sent.values())

"""A worker's streams of one session share its reads: one store read per append, not one
per stream, and each stream still sees exactly what it would reading alone."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import ParamSpec, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.projections import feed as fold_module
from diceledger.domain.projections.feed import FeedItem
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.state import evolve
from diceledger.domain.session.views import sighted_roll_view
from diceledger.infra.app import feed as feed_module
from diceledger.infra.app.feed import SessionFeed, SessionTails
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.projections.decoding import logged_all
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.vault.seeds import InMemorySeedVault
from tests.domain.projections.readable_feed import ReadableFeed

VIEWERS = ("gm", "ann", "bob", "cy", "dee")


class CountingStore(InMemoryEventStore):
    """The in-memory store, counting its reads of a stream."""

    def __init__(self) -> None:
        super().__init__()
        self.stream_reads = 0

    def read_stream(self, stream_id: str, from_version: int = 1) -> Iterator[RecordedEvent]:
        self.stream_reads += 1
        return super().read_stream(stream_id, from_version)


@dataclass
class Table:
    store: CountingStore
    sessions: SessionService
    session_id: str
    note_reads: int = 0

    def latest(self, session_id: str) -> str:
        """Stand in for the latest signed checkpoint: a note naming the log's size."""
        self.note_reads += 1
        return f"checkpoint of {session_id} at {self.store.current_version(session_id)}"

    def tails(self) -> SessionTails:
        return SessionTails(self.store, self.latest)

    def roll(self, who: str, blind: bool = False) -> None:
        if blind:
            command = cmd.RequestRoll(
                RollKind.CHECK, "1d20+1", target=Target(12), mode=RollMode.BLIND
            )
            self.sessions.execute(self.session_id, "gm", command)
            return
        self.sessions.execute(
            self.session_id, who, cmd.RequestRoll(RollKind.CHECK, "1d20+3", target=Target(11))
        )


def seated_table() -> Table:
    store = CountingStore()
    sessions = SessionService(store, InMemorySeedVault())
    session_id = sessions.start("Tomb", "gm").session_id
    for name in VIEWERS[1:]:
        sessions.execute(session_id, name, cmd.JoinSession(name))
    return Table(store, sessions, session_id)


def alone(table: Table, viewer: str, after: int = 0) -> list[FeedItem]:
    """What a feed reading the whole log by itself shows ``viewer``: the oracle."""
    records = table.store.read_stream(table.session_id)
    return ReadableFeed(viewer).extend(logged_all(records), after)


def test_five_streams_woken_by_one_roll_make_one_store_read() -> None:
    table = seated_table()
    tails = table.tails()
    feeds = [SessionFeed(tails.of(table.session_id), viewer) for viewer in VIEWERS]
    opened = time.monotonic()
    for one in feeds:
        one.read(0, opened)
    table.roll("ann")
    woken_at = time.monotonic()  # the wake-up goes out after the append committed
    before = table.store.stream_reads
    seen = [one.read(0, woken_at) for one in feeds]
    assert table.store.stream_reads - before == 1
    assert all(items and items[-1].event == "CheckResolved" for items in seen)


P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class Work:
    """What a worker spent bringing events to its streams, counted call by call."""

    folds: int = 0  # events folded into a session state
    views: int = 0  # roll views built
    encodes: int = 0  # items encoded as JSON

    def counting(self, name: str, function: Callable[P, R]) -> Callable[P, R]:
        def counted(*args: P.args, **kwargs: P.kwargs) -> R:
            setattr(self, name, getattr(self, name) + 1)
            return function(*args, **kwargs)

        return counted


@pytest.mark.parametrize("blind", [False, True])
def test_a_roll_reaching_a_hundred_streams_is_folded_once_and_encoded_once_per_sight(
    blind: bool,
) -> None:
    table = seated_table()
    tails = table.tails()
    feeds = [SessionFeed(tails.of(table.session_id), VIEWERS[n % 5]) for n in range(100)]
    opened = time.monotonic()
    for one in feeds:
        one.read(0, opened)
    before_version = table.store.current_version(table.session_id)
    table.roll("gm" if blind else "ann", blind=blind)
    appended = table.store.current_version(table.session_id) - before_version
    woken_at, reads = time.monotonic(), table.store.stream_reads
    work = Work()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fold_module, "evolve", work.counting("folds", evolve))
        views = work.counting("views", sighted_roll_view)
        patch.setattr(fold_module, "sighted_roll_view", views)
        encoder = SimpleNamespace(dumps=work.counting("encodes", json.dumps))
        patch.setattr(fold_module, "json", encoder)
        sent = [[item.data for item in one.read(0, woken_at)] for one in feeds]
    assert table.store.stream_reads - reads == 1
    assert all(len(texts) == appended for texts in sent)
    # The session's state after the batch, and after each event for its line: once each.
    assert work.folds == 2 * appended
    # A public roll looks the same to everyone; a blind one has the GM's view and the stub.
    sights = 2 if blind else 1
    assert work.views == sights
    assert work.encodes == sights * appended
    assert len({text for texts in sent for text in texts}) == sights * appended


def test_five_streams_woken_by_one_roll_read_its_checkpoint_once() -> None:
    table = seated_table()
    tails = table.tails()
    feeds = [SessionFeed(tails.of(table.session_id), viewer) for viewer in VIEWERS]
    table.roll("ann")
    woken_at = time.monotonic()
    notes = {one.latest_note(woken_at) for one in feeds}
    version = table.store.current_version(table.session_id)
    assert notes == {f"checkpoint of {table.session_id} at {version}"}
    assert table.note_reads == 1
    table.roll("bob")
    assert feeds[0].latest_note(time.monotonic()) != notes.pop()  # a later wake reads again


def test_a_stream_woken_after_the_last_read_asks_the_store_again() -> None:
    table = seated_table()
    tails = table.tails()
    first, second = (SessionFeed(tails.of(table.session_id), v) for v in ("gm", "ann"))
    first.read(0, time.monotonic())
    table.roll("bob")
    # Woken before the first feed's read began: that read is stale for this append.
    stale = second.read(0, time.monotonic())
    assert stale[-1].event == "CheckResolved"
    assert first.read(0, time.monotonic())[-1].event == "CheckResolved"


def test_a_hidden_roll_stays_hidden_from_a_player_sharing_the_gms_read() -> None:
    table = seated_table()
    tails = table.tails()
    gm, ann = (SessionFeed(tails.of(table.session_id), v) for v in ("gm", "ann"))
    table.roll("gm", blind=True)
    woken_at = time.monotonic()
    assert gm.read(0, woken_at) == alone(table, "gm")
    assert ann.read(0, woken_at) == alone(table, "ann")
    assert any(
        item.roll is not None and item.roll.get("status") == "hidden"
        for item in alone(table, "ann")
    )


# Steps of a played evening: a member rolls (or the GM rolls blind), or stream k reads.
Step = tuple[str, int]
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("roll"), st.integers(0, len(VIEWERS) - 1)),
        st.tuples(st.just("blind"), st.just(0)),
        st.tuples(st.just("read"), st.integers(0, len(VIEWERS) - 1)),
    ),
    max_size=30,
)


@settings(max_examples=40, deadline=None)
@given(steps=STEPS, held=st.integers(1, 8))
def test_shared_reads_show_each_stream_what_it_would_see_alone(
    steps: list[Step], held: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(feed_module, "HELD_EVENTS", held)  # small: the far-behind path too
        table = seated_table()
        tails = table.tails()
        feeds = [SessionFeed(tails.of(table.session_id), viewer) for viewer in VIEWERS]
        shown: list[list[FeedItem]] = [[] for _ in VIEWERS]
        for action, who in steps:
            if action == "read":
                shown[who].extend(feeds[who].read(0, time.monotonic()))
            else:
                table.roll(VIEWERS[who], blind=action == "blind")
        for who, viewer in enumerate(VIEWERS):
            shown[who].extend(feeds[who].read(0, time.monotonic()))
            assert shown[who] == alone(table, viewer), viewer


def test_a_player_opening_after_a_reveal_gets_the_roll_in_full_while_a_follower_got_stubs() -> None:
    table = seated_table()
    tails = table.tails()
    following = SessionFeed(tails.of(table.session_id), "ann")
    following.read(0, time.monotonic())
    table.roll("gm", blind=True)
    stubs = following.read(0, time.monotonic())
    table.sessions.execute(table.session_id, "gm", cmd.RevealRoll(stubs[-1].line.roll_id or 0))
    revealed = following.read(0, time.monotonic())
    opened = SessionFeed(tails.of(table.session_id), "ann").read(0, time.monotonic())
    assert all(item.line.hidden for item in stubs)
    assert [item.event for item in revealed] == ["RollRevealed"]
    assert opened == alone(table, "ann")
    assert not any(item.line.hidden for item in opened)


def test_streams_after_the_first_take_a_fresh_read_without_a_thread_and_not_a_stale_one() -> None:
    table = seated_table()
    tails = table.tails()
    feeds = [SessionFeed(tails.of(table.session_id), viewer) for viewer in VIEWERS]
    opened = time.monotonic()
    for one in feeds:
        one.read(0, opened)
    table.roll("bob")
    woken_at = time.monotonic()
    # Nothing read since the wake-up: held cannot answer, a thread must read the store.
    assert feeds[1].held(0, woken_at) is None and feeds[1].held_note(woken_at) is None
    first = feeds[0].read(0, woken_at)
    first_note = feeds[0].latest_note(woken_at)
    reads, notes = table.store.stream_reads, table.note_reads
    held = [one.held(0, woken_at) for one in feeds[1:]]
    held_notes = [one.held_note(woken_at) for one in feeds[1:]]
    assert (table.store.stream_reads, table.note_reads) == (reads, notes)
    for viewer, items in zip(VIEWERS[1:], held, strict=True):
        assert items is not None and items[-1].event == "CheckResolved"
        assert [item.version for item in items] == [item.version for item in first]
        assert items == alone(table, viewer, first[0].version - 1)
    assert all(noted is not None and noted.note == first_note for noted in held_notes)
    assert feeds[1].held(0, woken_at) == []  # taken once: nothing new since

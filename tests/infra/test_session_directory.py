"""The session directory behind `session list`: what replaying each session shows."""

from __future__ import annotations

import random

from diceledger.domain.projections.directory import Entry
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.state import SessionState, evolve
from diceledger.infra.codec.events import from_record
from diceledger.infra.projections.directory import SessionDirectory
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.store.port import EventStore
from tests.infra.played_tables import Table, play
from tests.infra.support import catch_up_overtaken


def replayed(store: EventStore) -> list[Entry]:
    """The listing as replaying every session gives it, in the order they started."""
    entries = []
    for session_id in store.stream_ids():
        state = SessionState()
        for record in store.read_stream(session_id):
            evolve(state, record.stream_version, from_record(record))
        entries.append(
            Entry(
                session_id,
                state.title,
                state.creator,
                len(state.members),
                len(state.rolls),
                state.ended,
            )
        )
    return entries


def test_catch_ups_list_each_session_as_its_replay_shows_it(sql_url: str) -> None:
    store, engine = InMemoryEventStore(batch_size=100), make_engine(sql_url)
    try:
        promoted = Table(store, "promoted", random.Random(3))
        promoted.run("gm", cmd.JoinSession("ann", as_gm=True))  # a second PlayerJoined
        promoted.play()
        for _ in play(store, 2000):
            # A new directory each time, as each `session list` process builds its own.
            directory = SessionDirectory(engine, store, batch_size=97)
            directory.catch_up()
        expected = replayed(store)
        assert list(directory.entries()) == expected
        joins = [r for r in store.read_stream("promoted") if r.event_type == "PlayerJoined"]
        assert len(joins) == 5  # gm, ann, bob, cy, then ann again as co-GM
        assert [e.members for e in expected if e.session_id == "promoted"] == [4]
        assert any(e.ended for e in expected) and not all(e.ended for e in expected)
        assert directory.rebuild() == store.head_position()
        assert list(directory.entries()) == expected
    finally:
        engine.dispose()


def test_an_overtaken_updater_does_not_count_rolls_twice(sqlite_url: str) -> None:
    store, engine = InMemoryEventStore(), make_engine(sqlite_url)
    try:
        for _ in play(store, 600):
            pass
        slow = SessionDirectory(engine, store, batch_size=100)
        fast = SessionDirectory(engine, store, batch_size=100)
        assert len(catch_up_overtaken(slow, fast)) == 1 and slow.status().behind == 0
        assert list(slow.entries()) == replayed(store)
    finally:
        engine.dispose()

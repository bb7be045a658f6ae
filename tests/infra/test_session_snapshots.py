"""Persisted session snapshots: a long session read back equals its replay, and the log wins.

A snapshot is a cache of ``replay(log)``: the state a fresh service builds from it (plus
the events after it) must be exactly the replayed state, and a snapshot that does not
match the log's head, comes from another fold, or does not decode is ignored.
"""

from __future__ import annotations

import gc
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount
from diceledger.domain.session.state import (
    FOLD_VERSION,
    Action,
    Roll,
    SessionState,
    evolve,
    replay,
)
from diceledger.infra.app import sessions as sessions_module
from diceledger.infra.app.verification import verify_log
from diceledger.infra.codec.events import from_record
from diceledger.infra.snapshots import codec as codec_module
from diceledger.infra.snapshots.codec import Head, SnapshotUnreadableError, decode_state, encode
from diceledger.infra.snapshots.schema import session_snapshots
from diceledger.infra.snapshots.store import SnapshotStore, Steady
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.store.port import EventStore
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.store.transaction import one_transaction
from diceledger.infra.vault.seeds import InMemorySeedVault
from tests.infra.played_tables import Table

EVERY = 12  # snapshot every this many events in these tests, so short sessions get one
CHECK = cmd.RequestRoll(RollKind.CHECK, "1d20+5", advantage=(Amount(1),), target=Target(15))


def replayed(store: EventStore, session_id: str) -> SessionState:
    return replay((r.stream_version, from_record(r)) for r in store.read_stream(session_id))


def played(seed: int, commands: int) -> tuple[InMemoryEventStore, str]:
    store = InMemoryEventStore()
    table = Table(store, f"snap-{seed}", random.Random(seed))
    for _ in range(commands):
        table.play()
    return store, table.session_id


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), commands=st.integers(0, 60), cut=st.floats(0, 1))
def test_a_snapshot_and_the_events_after_it_fold_to_the_replayed_state(
    seed: int, commands: int, cut: float
) -> None:
    store, session_id = played(seed, commands)
    records = list(store.read_stream(session_id))
    at = int(cut * len(records))
    text = encode(replay((r.stream_version, from_record(r)) for r in records[:at]))
    restored = decode_state(text)
    assert encode(restored) == text  # read back whole, it writes the same text again
    for record in records[at:]:
        evolve(restored, record.stream_version, from_record(record))
    whole = replayed(store, session_id)
    assert restored == whole
    assert list(restored.rolls) == list(whole.rolls)  # the same rolls, in the same order
    assert encode(restored) == encode(whole)


def test_reading_a_snapshot_leaves_the_cycle_collector_as_it_found_it() -> None:
    store, session_id = played(3, 30)
    text = encode(replayed(store, session_id))
    assert gc.isenabled()
    assert decode_state(text) == replayed(store, session_id)
    assert gc.isenabled()
    with pytest.raises(SnapshotUnreadableError):
        decode_state(text.replace('"rolls":[', '"rolls":[7,', 1))
    assert gc.isenabled()  # a refused snapshot turns it back on too
    gc.disable()  # the host's choice is kept
    try:
        decode_state(text)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_state_read_from_a_snapshot_is_not_walked_again_by_young_collections() -> None:
    # Made with the collector off, its objects would all be walked by the next young
    # collections; read back, they are already in the oldest generation.
    store, session_id = played(5, 40)
    text = encode(replayed(store, session_id))
    restored = decode_state(text)
    oldest = {id(found) for found in gc.get_objects(generation=2)}  # all alive: ids hold
    assert restored.rolls and id(restored) in oldest
    assert all(id(roll) in oldest for roll in restored.rolls.values())


def test_reading_a_snapshot_leaves_objects_a_process_froze_frozen() -> None:
    store, session_id = played(5, 20)
    text = encode(replayed(store, session_id))
    gc.freeze()  # as a server does before it forks its workers
    try:
        frozen = gc.get_freeze_count()
        assert decode_state(text) == replayed(store, session_id)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


@pytest.fixture
def engine(sql_url: str) -> Iterator[Engine]:
    built = make_engine(sql_url)
    yield built
    built.dispose()


@pytest.fixture(autouse=True)
def _snapshot_often(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions_module, "SNAPSHOT_EVERY", EVERY)


@dataclass(frozen=True)
class SnapshotRow:
    """The columns of a session's persisted snapshot, as read back."""

    fold_version: int
    stream_version: int
    event_hash: str
    state: str


class Processes:
    """Session services on one database, each as a fresh process would build it."""

    def __init__(self, engine: Engine) -> None:
        self.engine, self.vault = engine, InMemorySeedVault()
        self.store = SqlEventStore(engine)

    def fresh(self) -> sessions_module.SessionService:
        store = SqlEventStore(self.engine)
        return sessions_module.SessionService(
            store, self.vault, snapshots=SnapshotStore(self.engine)
        )

    def long_session(self, checks: int = 20) -> str:
        service = self.fresh()
        session_id = service.start("long", "gm").session_id
        service.execute(session_id, "ann", cmd.JoinSession("ann"))
        for _ in range(checks):
            service.execute(session_id, "ann", CHECK)
        return session_id

    def row(self, session_id: str) -> SnapshotRow | None:
        snap = session_snapshots.c
        query = sa.select(snap.fold_version, snap.stream_version, snap.event_hash, snap.state)
        with self.engine.connect() as connection:
            found = connection.execute(query.where(snap.stream_id == session_id)).first()
        return None if found is None else SnapshotRow(*found)

    def change(self, session_id: str, **values: object) -> None:
        with self.engine.begin() as connection:
            connection.execute(
                session_snapshots.update()
                .where(session_snapshots.c.stream_id == session_id)
                .values(**values)
            )


@pytest.fixture
def processes(engine: Engine) -> Processes:
    return Processes(engine)


def test_commands_keep_a_snapshot_that_names_an_event_of_the_log(processes: Processes) -> None:
    session_id = processes.long_session()
    row = processes.row(session_id)
    assert row is not None
    records = {r.stream_version: r for r in processes.store.read_stream(session_id)}
    assert len(records) - row.stream_version < EVERY
    assert row.event_hash == records[row.stream_version].hash


def test_a_fresh_service_starts_from_the_snapshot_and_reaches_the_replayed_state(
    processes: Processes,
) -> None:
    session_id = processes.long_session()
    restored = SnapshotStore(processes.engine).load(session_id)
    assert restored is not None and restored.version > 0
    service = processes.fresh()
    assert service.load(session_id) == replayed(processes.store, session_id)
    outcome = service.execute(session_id, "ann", CHECK)  # and plays on from it
    assert outcome.state == replayed(processes.store, session_id)


def test_a_snapshot_whose_head_the_log_does_not_hold_is_ignored(processes: Processes) -> None:
    session_id = processes.long_session()
    row = processes.row(session_id)
    assert row is not None
    # An edited row: the state of an empty session, claiming the log's real head version.
    processes.change(session_id, event_hash="0" * 64)
    assert SnapshotStore(processes.engine).load(session_id) is None
    processes.change(
        session_id, event_hash=row.event_hash, stream_version=row.stream_version + 1000
    )
    assert SnapshotStore(processes.engine).load(session_id) is None
    assert processes.fresh().load(session_id) == replayed(processes.store, session_id)


def test_a_snapshot_of_another_fold_version_is_ignored_then_rewritten(
    processes: Processes,
) -> None:
    session_id = processes.long_session()
    processes.change(session_id, fold_version=0)
    assert SnapshotStore(processes.engine).load(session_id) is None
    service = processes.fresh()
    for _ in range(EVERY):
        service.execute(session_id, "ann", CHECK)
    row = processes.row(session_id)
    assert row is not None and row.fold_version == FOLD_VERSION
    assert SnapshotStore(processes.engine).load(session_id) is not None


def a_roll_made_garbage(text: str) -> str:
    """Return snapshot text whose header still reads but whose first roll is not a roll."""
    state = decode_state(text)
    first = next(iter(state.rolls.values()))
    first.revealed = cast(bool, "not a boolean")
    return encode(state)


def test_a_snapshot_that_does_not_decode_whole_is_not_used(processes: Processes) -> None:
    session_id = processes.long_session()
    row = processes.row(session_id)
    assert row is not None
    # The head matches and the header reads, but one roll is garbage: the whole snapshot
    # is refused when read, so nothing undecoded reaches a command.
    processes.change(session_id, state=a_roll_made_garbage(row.state))
    assert SnapshotStore(processes.engine).load(session_id) is None
    service = processes.fresh()
    outcome = service.execute(session_id, "ann", cmd.OpenDispute(1, "odd"))  # reads roll 1
    assert outcome.state == replayed(processes.store, session_id)
    processes.change(session_id, state="not json at all")
    assert SnapshotStore(processes.engine).load(session_id) is None
    assert processes.fresh().load(session_id) == replayed(processes.store, session_id)


def test_a_state_read_from_a_snapshot_holds_only_decoded_rolls(processes: Processes) -> None:
    session_id = processes.long_session()
    restored = SnapshotStore(processes.engine).load(session_id)
    assert restored is not None and restored.rolls
    # Any copy of the rolls is a plain dict of rolls, never of the text they were stored as.
    for copied in (dict(restored.rolls), {**restored.rolls}, restored.rolls | {}):
        assert type(copied) is dict
        assert all(isinstance(roll, Roll) for roll in copied.values())
    assert all(isinstance(action, Action) for action in dict(restored.actions).values())


def test_commands_go_on_when_snapshots_cannot_be_written_or_read(processes: Processes) -> None:
    session_id = processes.long_session(checks=2)
    with processes.engine.begin() as connection:
        connection.execute(sa.text("DROP TABLE session_snapshots"))
    service = processes.fresh()
    for _ in range(EVERY):
        service.execute(session_id, "ann", CHECK)
    assert processes.fresh().load(session_id) == replayed(processes.store, session_id)


def test_verify_reads_the_log_never_the_snapshot(processes: Processes) -> None:
    session_id = processes.long_session()
    row = processes.row(session_id)
    assert row is not None
    # A snapshot whose head matches is trusted by commands: a forged roll in it shows
    # there, but verification replays the log and is not fooled.
    forged = row.state.replace('"face":', '"face":1', 1)
    processes.change(session_id, state=forged)
    assert verify_log(processes.store, session_id).ok


class KeptSnapshots:
    """Snapshots kept in memory, noting the version of every state written."""

    def __init__(self) -> None:
        self.written: list[int] = []

    def load(self, stream_id: str) -> SessionState | None:
        return None

    def save(self, state: SessionState, head: Head, steady: Steady) -> bool:
        self.written.append(head.version)
        return True


def test_a_long_session_writes_its_whole_state_less_often_as_it_grows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every write encodes the whole session: spaced by a share of the session, a long
    # session's commands no longer each pay a growing part of them.
    monkeypatch.setattr(sessions_module, "SNAPSHOT_SHARE", 4)
    snapshots = KeptSnapshots()
    service = sessions_module.SessionService(
        InMemoryEventStore(), InMemorySeedVault(), snapshots=snapshots
    )
    session_id = service.start("long", "gm").session_id
    service.execute(session_id, "ann", cmd.JoinSession("ann"))
    most = 0  # the most events one command appends
    while service.load(session_id).version < 400:
        most = max(most, len(service.execute(session_id, "ann", CHECK).appended))
    written, version = snapshots.written, service.load(session_id).version
    gaps = [(at, after - at) for at, after in zip([0, *written], written, strict=False)]
    assert all(max(EVERY, at // 4) <= gap < max(EVERY, at // 4) + most for at, gap in gaps)
    assert version - written[-1] < max(EVERY, written[-1] // 4) + most
    assert len(written) < version // EVERY // 2  # a fixed spacing wrote one every EVERY


def test_a_command_racing_a_snapshot_of_its_session_waits_until_it_is_written(
    processes: Processes, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A request's snapshot is written after its transaction commits, when the session's
    # lock is free again: another request's command on the same session must not fold
    # into the state while it is being encoded, or the snapshot is lost (the rolls change
    # under the encoding) or holds events past the version it claims.
    monkeypatch.setattr(sessions_module, "SNAPSHOT_EVERY", 10**6)
    service = processes.fresh()
    session_id = service.start("racing", "gm").session_id
    service.execute(session_id, "ann", cmd.JoinSession("ann"))
    for _ in range(3):
        service.execute(session_id, "ann", CHECK)

    def other_request() -> None:
        with one_transaction(processes.engine):
            service.execute(session_id, "ann", CHECK)

    other = threading.Thread(target=other_request)
    real_stored = codec_module._stored

    def stored_while_another_request_rolls(roll: Roll) -> object:
        if other.ident is None:  # the first roll encoded
            monkeypatch.setattr(sessions_module, "SNAPSHOT_EVERY", 10**6)  # it writes none
            other.start()
            other.join(timeout=0.5)  # with the lock held, it waits for this snapshot
        return real_stored(roll)

    monkeypatch.setattr(codec_module, "_stored", stored_while_another_request_rolls)
    monkeypatch.setattr(sessions_module, "SNAPSHOT_EVERY", 1)  # this command writes one
    with one_transaction(processes.engine):
        version = service.execute(session_id, "ann", CHECK).state.version
    other.join(timeout=30)
    assert not other.is_alive()

    row = processes.row(session_id)
    assert row is not None and row.stream_version == version
    records = list(processes.store.read_stream(session_id))
    assert records[-1].stream_version > version  # the other request did roll
    state = replay((r.stream_version, from_record(r)) for r in records[:version])
    assert row.state == encode(state)

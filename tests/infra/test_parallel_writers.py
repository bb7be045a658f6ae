"""PostgreSQL: appends to different sessions run in parallel, and the global reader never skips.

The commits are delayed inside the database, after the append has drawn its position and
its transaction id: a trigger on the test's own copy of the events table either sleeps a
random while (``linger``) or waits on an advisory lock the test holds (``gate``).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from diceledger.domain.hashchain import ChainHead
from diceledger.domain.records import RecordedEvent
from diceledger.infra.projections.wiring import session_directory
from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.horizon import read_settled
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events
from diceledger.infra.store.sealing import seal
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.support import new_event

pytestmark = pytest.mark.postgres

GATE_KEY = 0x6761_7465  # "gate"
HELD = "held-"  # appends to sessions named so wait at the gate

LINGER = [
    """
    CREATE FUNCTION linger_before_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_sleep(random() * 0.02);
        RETURN NULL;
    END
    $$
    """,
    """
    CREATE TRIGGER events_linger AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION linger_before_commit()
    """,
]
GATE = [
    f"""
    CREATE FUNCTION wait_at_gate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_advisory_xact_lock_shared({GATE_KEY});
        RETURN NULL;
    END
    $$
    """,
    f"""
    CREATE TRIGGER events_gate AFTER INSERT ON events
    FOR EACH ROW WHEN (starts_with(NEW.stream_id, '{HELD}')) EXECUTE FUNCTION wait_at_gate()
    """,
]
WAITING_AT_GATE = (
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
    f" AND objid = {GATE_KEY} AND database = (SELECT oid FROM pg_database"
    " WHERE datname = current_database())"
)


@pytest.fixture
def engine(postgres_url: str) -> Iterator[Engine]:
    upgrade(postgres_url)
    engine = make_engine(postgres_url)
    yield engine
    engine.dispose()


def install(engine: Engine, statements: list[str]) -> None:
    with engine.begin() as connection:
        for statement in statements:
            connection.exec_driver_sql(statement)


class Gate:
    """An advisory lock held on a connection of its own; held appends wait until it opens."""

    def __init__(self, engine: Engine) -> None:
        self._connection = engine.connect()
        self._connection.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": GATE_KEY})
        self._connection.commit()

    def wait_until_waiting(self, count: int) -> None:
        """Return once ``count`` appends are waiting at the gate (within 10 s)."""
        deadline = time.monotonic() + 10
        while self._connection.execute(sa.text(WAITING_AT_GATE)).scalar_one() < count:
            assert time.monotonic() < deadline, "no append reached the gate"
            self._connection.rollback()
            time.sleep(0.01)
        self._connection.rollback()

    def open(self) -> None:
        self._connection.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": GATE_KEY})
        self._connection.commit()
        self._connection.close()


def test_a_transaction_held_open_on_one_session_does_not_delay_an_append_to_another(
    engine: Engine,
) -> None:
    install(engine, GATE)
    store = SqlEventStore(engine)
    happened: list[str] = []
    gate = Gate(engine)
    held = threading.Thread(
        target=lambda: happened.append(
            "A appended" if store.append(f"{HELD}A", [new_event()], 0) else "A failed"
        )
    )
    held.start()
    try:
        gate.wait_until_waiting(1)  # A has drawn its position and waits before COMMIT
        store.append("B", [new_event()], 0)
        happened.append("B appended")
    finally:
        happened.append("A released")
        gate.open()
        held.join(20)
    assert happened == ["B appended", "A released", "A appended"]


def test_an_event_committed_after_a_later_position_is_read_not_skipped(engine: Engine) -> None:
    install(engine, GATE)
    store = SqlEventStore(engine)
    impatient = SqlEventStore(engine, settle_timeout_ms=50)
    gate = Gate(engine)
    held = threading.Thread(target=store.append, args=(f"{HELD}A", [new_event()], 0))
    held.start()
    try:
        gate.wait_until_waiting(1)
        (b,) = store.append("B", [new_event()], 0)
        with engine.connect() as connection:
            by_position = connection.scalars(sa.text("SELECT position FROM events")).all()
        while_held = list(impatient.read_all())
    finally:
        gate.open()
        held.join(20)
    after = list(store.read_all())
    a = next(record for record in after if record.stream_id == f"{HELD}A")
    # A took its position first and committed last: a reader going by position alone
    # saw only B's and would have moved past A's for good.
    assert a.position < b.position and by_position == [b.position]
    # This one held B back until A's transaction ended, then read both, A first.
    assert while_held == []
    assert [record.event_id for record in after] == [a.event_id, b.event_id]


def test_the_transaction_that_began_writing_first_is_read_first_whatever_its_position(
    engine: Engine,
) -> None:
    store = SqlEventStore(engine)
    with engine.connect() as first:
        first.execute(sa.text("SELECT pg_current_xact_id()"))  # takes its id, writes later
        (b,) = store.append("B", [new_event()], 0)
        (a,) = seal("A", [new_event()], ChainHead(), datetime.now(UTC))
        first.execute(events.insert(), to_row(a))
        first.commit()
    read = list(store.read_all())
    assert [record.stream_id for record in read] == ["A", "B"]
    assert read[0].position > read[1].position == b.position
    # Resuming after A's (higher) position still yields B; B is the log's last event.
    assert list(store.read_all(after_position=read[0].position)) == [b]
    assert store.head_position() == read[0].position and store.last_position() == b.position
    directory = session_directory(store, engine)
    directory.catch_up()
    assert directory.status().behind == 0 and directory.checkpoint() == b.position


def test_read_all_waits_for_an_older_transaction_to_end_and_then_reads_past_it(
    engine: Engine,
) -> None:
    install(engine, GATE)
    store = SqlEventStore(engine)
    gate = Gate(engine)
    held = threading.Thread(target=store.append, args=(f"{HELD}A", [new_event()], 0))
    held.start()
    paused = threading.Event()
    read: list[RecordedEvent] = []

    def pause(seconds: float) -> None:
        paused.set()
        time.sleep(seconds)

    try:
        gate.wait_until_waiting(1)
        (b,) = store.append("B", [new_event()], 0)
        reader = threading.Thread(
            target=lambda: read.extend(read_settled(engine, 0, 10, 20, pause))
        )
        reader.start()
        assert paused.wait(10), "the reader did not wait for the older transaction"
    finally:
        gate.open()
        held.join(20)
    reader.join(20)
    assert [record.stream_id for record in read] == [f"{HELD}A", "B"]
    assert read[1] == b


def test_a_reader_following_many_writers_with_delayed_commits_sees_each_event_once(
    engine: Engine,
) -> None:
    install(engine, LINGER)
    streams = [f"table-{n}" for n in range(8)]
    written: dict[str, list[str]] = {stream: [] for stream in streams}

    def write(stream: str, seed: int) -> None:
        rng, version = random.Random(seed), 0
        store = SqlEventStore(engine)
        while version < 40:
            batch = [new_event(writer=stream) for _ in range(rng.randint(1, 3))]
            store.append(stream, batch, version)
            version += len(batch)
            written[stream].extend(event.event_id for event in batch)

    writers = [threading.Thread(target=write, args=(s, n)) for n, s in enumerate(streams)]
    reader = SqlEventStore(engine, batch_size=7)
    seen: list[RecordedEvent] = []
    last, deadline = 0, time.monotonic() + 120
    for thread in writers:
        thread.start()
    while True:
        finished = not any(thread.is_alive() for thread in writers)
        for record in reader.read_all(after_position=last):
            seen.append(record)
            last = record.position
        if finished:
            break
        assert time.monotonic() < deadline, "the writers did not finish in time"
    everything = {event_id for ids in written.values() for event_id in ids}
    assert len(seen) == len({record.event_id for record in seen}) == len(everything)
    assert {record.event_id for record in seen} == everything
    for stream in streams:
        versions = [record.stream_version for record in seen if record.stream_id == stream]
        assert versions == list(range(1, len(written[stream]) + 1))
    # Whether this run's commits landed late is up to the scheduler (a busy machine once had
    # none), so it is not asserted: what is asserted holds for every interleaving. A late
    # commit by construction is test_read_all_waits_for_an_older_transaction_... above.

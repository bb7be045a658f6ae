"""Several processes writing at once: no lost, duplicated or out-of-order event."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from diceledger.domain.hashchain import verify_chain
from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.sql import SqlEventStore
from tests.infra import workers
from tests.infra.support import new_event

pytestmark = pytest.mark.slow


@pytest.fixture
def url(sql_url: str) -> str:
    value = sql_url
    if value.startswith("postgresql"):
        # These tests are about ordering, not durability: skipping the WAL flush at commit
        # (the crash test covers durability) cuts the run from about 30 s to a few.
        value += "%20-csynchronous_commit%3Doff"
    return value


@pytest.fixture
def store(url: str) -> Iterator[SqlEventStore]:
    engine = make_engine(url)
    yield SqlEventStore(engine)
    engine.dispose()


def test_four_writers_into_one_stream_make_a_gapless_chain_of_1000(
    url: str, store: SqlEventStore
) -> None:
    context = multiprocessing.get_context("spawn")
    with context.Pool(4) as pool:
        results = pool.starmap(workers.append_with_retry, [(url, "shared", 250)] * 4)
    written = [event_id for result in results for event_id in result]
    recorded = list(store.read_stream("shared"))
    assert len(recorded) == 1000
    assert [r.stream_version for r in recorded] == list(range(1, 1001))
    assert sorted(r.event_id for r in recorded) == sorted(written)
    assert len(set(written)) == 1000
    assert verify_chain(recorded) is None


def test_a_reader_catching_up_by_position_sees_every_event_once_in_order(
    url: str, store: SqlEventStore
) -> None:
    context = multiprocessing.get_context("spawn")
    streams = [f"table-{n}" for n in range(3)]
    seen = []
    with context.Pool(3) as pool:
        pending = pool.starmap_async(
            workers.append_batches, [(url, stream, 150, n) for n, stream in enumerate(streams)]
        )
        last = 0
        while True:
            finished = pending.ready()
            for record in store.read_all(after_position=last):
                seen.append(record)
                last = record.position
            if finished:
                break
            time.sleep(0.005)
        written = [event_id for result in pending.get() for event_id in result]
    assert len({record.position for record in seen}) == len(seen)
    assert sorted(record.event_id for record in seen) == sorted(written)
    for stream in streams:
        versions = [record.stream_version for record in seen if record.stream_id == stream]
        assert versions == list(range(1, len(versions) + 1))
    if url.startswith("sqlite"):  # one writer at a time: the log's order is position order
        assert [r.position for r in seen] == sorted(r.position for r in seen)
    assert verify_chain(seen) is None


@pytest.mark.postgres
def test_a_retry_racing_its_own_first_attempt_gets_the_original_positions(
    postgres_url: str,
) -> None:
    # The first attempt has inserted and waits before COMMIT; the retry's lookup cannot see
    # its rows, so the retry's insert waits on the unique event ids and collides once the
    # first attempt commits. It must still answer with the first attempt's positions.
    upgrade(postgres_url)
    first_engine, retry_engine = make_engine(postgres_url), make_engine(postgres_url)
    first, retry = SqlEventStore(first_engine), SqlEventStore(retry_engine)
    release = threading.Event()
    sa.event.listen(first_engine, "commit", lambda _connection: release.wait(10))
    batch = [new_event(), new_event()]
    outcomes: dict[str, object] = {}

    def attempt(name: str, store: SqlEventStore) -> None:
        try:
            outcomes[name] = store.append("s1", batch, expected_version=0)
        except Exception as error:  # the assertion below shows what happened
            outcomes[name] = error

    threads = [threading.Thread(target=attempt, args=("first", first))]
    threads[0].start()
    with retry_engine.connect() as watcher:
        wait_for(watcher, IN_OUR_DATABASE + " AND state = 'idle in transaction'", 1)
        threads.append(threading.Thread(target=attempt, args=("retry", retry)))
        threads[1].start()
        wait_for(watcher, IN_OUR_DATABASE + " AND wait_event_type = 'Lock'", 1)
    release.set()
    for thread in threads:
        thread.join(20)
    try:
        assert outcomes["retry"] == outcomes["first"]
        assert first.current_version("s1") == 2 and len(list(first.read_all())) == 2
    finally:
        first_engine.dispose()
        retry_engine.dispose()


IN_OUR_DATABASE = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
    " AND pid <> pg_backend_pid()"
)


def wait_for(connection: sa.Connection, query: str, count: int) -> None:
    """Poll a count query until it reaches ``count`` (within 10 s)."""
    deadline = time.monotonic() + 10
    while connection.execute(sa.text(query)).scalar_one() < count:
        assert time.monotonic() < deadline, f"timed out waiting for: {query}"
        time.sleep(0.01)
        connection.rollback()  # a fresh snapshot for the next poll

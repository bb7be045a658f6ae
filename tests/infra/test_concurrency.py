"""Several processes writing at once: no lost, duplicated or out-of-order event."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from domain.hashchain import verify_chain
from infra.db import make_engine, upgrade
from infra.store.sql import SqlEventStore
from tests.infra import workers

pytestmark = pytest.mark.slow

SQL_BACKENDS = [
    pytest.param("sqlite_url", id="sqlite"),
    pytest.param("postgres_url", id="postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(params=SQL_BACKENDS)
def url(request: pytest.FixtureRequest) -> str:
    value: str = request.getfixturevalue(request.param)
    upgrade(value)
    if request.param == "postgres_url":
        # These tests are about ordering, not durability: skipping the WAL flush at commit
        # (the crash test covers durability) cuts the run from about 30 s to a few.
        value += "%20-csynchronous_commit%3Doff"
    return value


@pytest.fixture
def store(url: str):
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
    positions = [record.position for record in seen]
    assert positions == sorted(positions)
    assert len(set(positions)) == len(positions)
    assert sorted(record.event_id for record in seen) == sorted(written)
    assert verify_chain(seen) is None

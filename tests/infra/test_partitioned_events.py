"""The events table hash-partitioned by session, exactly as docs/storage.md lays it out.

Each test takes a fresh schema on the test server, migrates it, and runs the page's
conversion script, which moves ``events`` into partitions by ``stream_id``. The store's
contract suite and the parallel-writers test then run unchanged against it: the code
never names a partition, and the reader's order does not depend on where a row lives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.port import EventStore
from diceledger.infra.store.sql import SqlEventStore
from tests.infra import test_parallel_writers, test_store_contract
from tests.infra.support import StoreFactory, new_event, ticking_clock

pytestmark = pytest.mark.postgres

DOC = Path(__file__).resolve().parents[2] / "docs" / "storage.md"
MARK = "-- Move the events table into hash partitions by session"


def conversion_script() -> str:
    """Return the page's SQL block that partitions the events table."""
    blocks = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    (script,) = [block for block in blocks if block.startswith(MARK)]
    return str(script)


def partitioned(postgres_url: str) -> str:
    """Migrate the scratch schema and move its events table into partitions."""
    upgrade(postgres_url)
    conninfo = sa.make_url(postgres_url).set(drivername="postgresql").render_as_string(False)
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute(conversion_script().encode())
    return postgres_url


def partitions(engine: Engine) -> dict[str, int]:
    query = "SELECT tableoid::regclass::text, count(*) FROM events GROUP BY 1"
    with engine.connect() as connection:
        return {name: count for name, count in connection.execute(sa.text(query))}


@pytest.fixture
def make_store(request: pytest.FixtureRequest, postgres_url: str) -> StoreFactory:
    url = partitioned(postgres_url)
    engines: list[Engine] = []

    def build(**options: Any) -> EventStore:
        engine = make_engine(url)
        engines.append(engine)
        return SqlEventStore(engine, **options)

    def dispose() -> None:
        for engine in engines:
            engine.dispose()

    request.addfinalizer(dispose)
    return build


@pytest.fixture
def store(make_store: StoreFactory) -> EventStore:
    return make_store(clock=ticking_clock(), batch_size=3)


@pytest.fixture
def engine(postgres_url: str) -> Iterator[Engine]:
    engine = make_engine(partitioned(postgres_url))
    yield engine
    engine.dispose()


# The whole store contract and the parallel-writer tests, collected here again with the
# partitioned fixtures above.
REUSED = (
    "test_a_reader_following_many_writers_with_delayed_commits_sees_each_event_once",
    "test_a_transaction_held_open_on_one_session_does_not_delay_an_append_to_another",
)
globals().update(
    {name: test for name, test in vars(test_store_contract).items() if name.startswith("test_")}
)
globals().update({name: getattr(test_parallel_writers, name) for name in REUSED})


def test_sessions_spread_over_the_partitions_and_each_stays_in_one(engine: Engine) -> None:
    store = SqlEventStore(engine)
    for n in range(40):
        store.append(f"table-{n}", [new_event(), new_event()], expected_version=0)
    spread = partitions(engine)
    assert len(spread) == 4 and sum(spread.values()) == 80
    query = "SELECT count(DISTINCT tableoid) FROM events GROUP BY stream_id"
    with engine.connect() as connection:
        assert set(connection.scalars(sa.text(query))) == {1}


def test_a_log_recorded_before_partitioning_reads_on_unchanged(postgres_url: str) -> None:
    upgrade(postgres_url)
    before_engine = make_engine(postgres_url)
    try:
        before = SqlEventStore(before_engine)
        for n in range(6):
            before.append(f"table-{n % 3}", [new_event()], expected_version=n // 3)
        recorded = list(before.read_all())
    finally:
        before_engine.dispose()
    engine = make_engine(partitioned(postgres_url))
    try:
        store = SqlEventStore(engine)
        assert list(store.read_all()) == recorded
        (appended,) = store.append("table-0", [new_event()], expected_version=2)
        assert appended.position > recorded[-1].position
        assert list(store.read_all(after_position=recorded[-1].position)) == [appended]
    finally:
        engine.dispose()

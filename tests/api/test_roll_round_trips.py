"""What one roll sends PostgreSQL (its round trips and pooled-connection checkouts) and SQLite.

Counted, never timed: every statement the driver sends (``Cursor.execute``, one
``executemany`` pipeline) and every transaction command it sends on its own (BEGIN, COMMIT,
ROLLBACK), each a request and its answer over the network; and every connection taken from
SQLAlchemy's pool. A roll's figures are deterministic once the session's lock row exists and
the warm-up rolls have run, so they are asserted exactly: a change that adds a round trip to
every roll has to say so here (docs/performance.md, "W7 HTTP").
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
import psycopg
import pytest
import sqlalchemy as sa
from psycopg._connection_base import BaseConnection
from sqlalchemy.pool import Pool

from tests.api.conftest import Api, build_api, open_table, served_api

CHECK = {"kind": "check", "expression": "1d20+3", "target": 12, "adv": [{"amount": 1}]}
WARM_UP = 3  # the session's lock row is made by its first roll
MEASURED = 5  # rolls, fewer than a snapshot's worth of events (SNAPSHOT_EVERY)


@dataclass
class Wire:
    """What the process sent PostgreSQL while ``counting``: round trips and checkouts."""

    counting: bool = False
    seen: Counter[str] = field(default_factory=Counter)

    def count(self, what: str) -> None:
        if self.counting:
            self.seen[what] += 1

    @property
    def round_trips(self) -> int:
        return self.seen["statement"] + self.seen["transaction command"]


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[Wire]:
    counted = Wire()
    execute, executemany = psycopg.Cursor.execute, psycopg.Cursor.executemany
    command = BaseConnection._exec_command

    def counted_execute(cursor: Any, *args: Any, **kwargs: Any) -> Any:
        counted.count("statement")
        return execute(cursor, *args, **kwargs)

    def counted_executemany(cursor: Any, *args: Any, **kwargs: Any) -> Any:
        counted.count("statement")  # one pipeline: the rows go out together, one sync
        return executemany(cursor, *args, **kwargs)

    def counted_command(connection: Any, *args: Any, **kwargs: Any) -> Any:
        counted.count("transaction command")
        return command(connection, *args, **kwargs)

    def checked_out(*_: Any) -> None:
        counted.count("checkout")

    monkeypatch.setattr(psycopg.Cursor, "execute", counted_execute)
    monkeypatch.setattr(psycopg.Cursor, "executemany", counted_executemany)
    monkeypatch.setattr(BaseConnection, "_exec_command", counted_command)
    sa.event.listen(Pool, "checkout", checked_out)
    try:
        yield counted
    finally:
        sa.event.remove(Pool, "checkout", checked_out)


def per_roll(api: Api, wire: Wire) -> list[tuple[int, int]]:
    """Roll checks in a session; return each measured roll's (round trips, checkouts)."""
    table = open_table(api)
    path = f"/api/v1/sessions/{table.sid}/rolls"
    figures = []
    for number in range(WARM_UP + MEASURED):
        wire.seen.clear()
        wire.counting = number >= WARM_UP
        rolled = api.post(path, table.ann, CHECK, key=str(uuid.uuid4()))
        wire.counting = False
        assert rolled.status_code == 201, rolled.text
        if number >= WARM_UP:
            figures.append((wire.round_trips, wire.seen["checkout"]))
    return figures


@pytest.mark.postgres
def test_a_roll_takes_thirteen_round_trips_on_two_pooled_connections(
    postgres_api: Api, wire: Wire
) -> None:
    assert per_roll(postgres_api, wire) == [(13, 2)] * MEASURED


@pytest.mark.postgres
def test_a_worker_with_a_pool_of_one_connection_takes_rolls(
    postgres_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A request holds its shared connection from its first read to its commit: a read
    # that took a second connection meanwhile (a session's snapshot, its seed, on a
    # worker's first roll in it) would wait for itself once the pool is spent, as 64
    # clients on a worker's 15 connections did for 30 s in W7.
    table = open_table(postgres_api)
    create_engine = sa.create_engine

    def one_connection_pool(*args: Any, **kwargs: Any) -> sa.Engine:
        return create_engine(*args, **kwargs, pool_size=1, max_overflow=0, pool_timeout=3)

    monkeypatch.setattr(sa, "create_engine", one_connection_pool)
    worker = build_api(postgres_api.url)
    try:
        with worker.client:
            for token in (table.ann, table.bob, table.ann):
                rolled = worker.roll(table.sid, token, CHECK)
                assert rolled.status_code == 201, rolled.text
    finally:
        worker.services.app.close()
        worker.db.dispose()


@pytest.fixture
def sqlite_api(request: pytest.FixtureRequest) -> Iterator[Api]:
    yield from served_api("sqlite", request)


def test_a_roll_on_sqlite_begins_one_transaction_its_write(sqlite_api: Api) -> None:
    # SQLite runs a statement outside BEGIN in its own snapshot, as PostgreSQL's autocommit
    # does: the token, the Idempotency-Key and the session's new events are read so, and
    # only the write transaction begins (each BEGIN and ROLLBACK a statement's work). The
    # append takes no savepoint, as on PostgreSQL (``_attempt`` in the checkpoint ledger),
    # and a state already current is caught up by asking the stream's version alone.
    table = open_table(sqlite_api)
    path = f"/api/v1/sessions/{table.sid}/rolls"
    traced: list[str] = []

    def trace(dbapi_connection: Any, *_: Any) -> None:
        dbapi_connection.set_trace_callback(traced.append)  # what SQLite itself runs

    sa.event.listen(Pool, "checkout", trace)
    try:
        for _ in range(WARM_UP):
            assert sqlite_api.post(path, table.ann, CHECK, key=str(uuid.uuid4())).status_code == 201
        traced.clear()
        rolled = sqlite_api.post(path, table.ann, CHECK, key=str(uuid.uuid4()))
    finally:
        sa.event.remove(Pool, "checkout", trace)
    assert rolled.status_code == 201, rolled.text
    opened = [statement for statement in traced if statement.split()[0].upper() == "BEGIN"]
    assert opened == ["BEGIN IMMEDIATE"], traced
    assert not [statement for statement in traced if "SAVEPOINT" in statement.upper()], traced
    # The worker's state of the session is current: its version is asked, no page of rows.
    assert not [s for s in traced if s.startswith("SELECT events.position")], traced
    assert sum(statement.upper().startswith("SELECT") for statement in traced) >= 3, traced


def test_a_roll_goes_to_the_threadpool_for_its_member_and_its_route_only(
    sqlite_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each hop to the route threadpool and back costs the event loop and a worker thread
    # a handoff (0.1 to 0.2 ms a request, docs/performance.md). The member's token is a
    # database read and the route rolls, so both run there; finding the worker's services
    # does no I/O and runs on the event loop.
    table = open_table(sqlite_api)
    path = f"/api/v1/sessions/{table.sid}/rolls"
    ran: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counted(function: Any, *args: Any, **kwargs: Any) -> Any:
        ran.append(getattr(function, "func", function).__name__)  # a dependency's partial
        return await run_sync(function, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    rolled = sqlite_api.post(path, table.ann, CHECK, key=str(uuid.uuid4()))
    assert rolled.status_code == 201, rolled.text
    assert len(ran) == 2 and ran[0] == "session_member", ran  # then the route

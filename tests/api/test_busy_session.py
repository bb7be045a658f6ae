"""A session's lock: another role cannot take it, and a held one answers 503, never a hang.

On PostgreSQL the per-session ledger lock is a row of ``session_locks`` locked FOR UPDATE,
which needs UPDATE on that table: a role that may connect and read cannot take it (as it
could take an advisory lock). The app's own role, in a connection of its own (a second
deployment, a hand-run psql), can hold it: then a roll waits a bounded time and answers
503 session-busy with Retry-After.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection, make_url

from diceledger.domain.errors import ConcurrencyError
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.store.sqlite_append import SqliteAppend
from tests.api.conftest import Api, open_table, served_api

CHECK = {"kind": "check", "expression": "1d20+5", "target": 15}
# Not a timing assertion: a bound so that a roll which hangs fails the test, not the run.
HANG_BOUND_SECONDS = 60
KEY = "ann-check-1"  # the retry Retry-After asks for is the same request, same key
Holder = psycopg.Connection[tuple[object, ...]]
# What the app's role does to take a session's lock (infra/store/session_lock.py).
TAKE_LOCK = (
    "INSERT INTO session_locks (stream_id, purpose) VALUES (%s, 'session') ON CONFLICT DO NOTHING",
    "SELECT 1 FROM session_locks WHERE stream_id = %s AND purpose = 'session' FOR UPDATE",
)


def conninfo(api: Api, user: str | None = None) -> str:
    """Return a libpq connection string to the API's database and schema, as ``user``."""
    parsed = make_url(api.url)
    options = parsed.query["options"]
    return (
        f"host={parsed.host} port={parsed.port} dbname={parsed.database} "
        f"user={user or parsed.username} options={options}"
    )


@pytest.fixture
def app_role(postgres_api: Api) -> Iterator[Holder]:
    """Yield a connection of the app's own role, outside the server."""
    with psycopg.connect(conninfo(postgres_api)) as connection:
        yield connection


@pytest.fixture
def reader(postgres_api: Api) -> Iterator[Holder]:
    """Yield a connection of a role that may connect and read the lock rows, no more."""
    parsed = make_url(postgres_api.url)
    schema = str(parsed.query["options"]).split("=")[-1]
    role = f"reader_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(conninfo(postgres_api), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        admin.execute(f"GRANT SELECT ON session_locks, events TO {role}")
    try:
        with psycopg.connect(conninfo(postgres_api, role)) as connection:
            yield connection
    finally:
        with psycopg.connect(conninfo(postgres_api), autocommit=True) as admin:
            admin.execute(f"DROP OWNED BY {role}")
            admin.execute(f"DROP ROLE {role}")


def stored_versions(api: Api, sid: str) -> list[int]:
    """Return the stream versions the session's rows hold, as stored, in order."""
    with api.db.connect() as connection:
        query = sa.select(events.c.stream_version).where(events.c.stream_id == sid)
        return sorted(connection.scalars(query))


def roll(api: Api, sid: str, token: str) -> httpx2.Response:
    answer: httpx2.Response = api.post(f"/api/v1/sessions/{sid}/rolls", token, CHECK, KEY)
    return answer


def roll_while_held(api: Api, holder: Holder, sid: str, token: str) -> httpx2.Response:
    """Roll while ``holder`` holds the session's lock; release it whatever happens."""
    for statement in TAKE_LOCK:
        holder.execute(statement, (sid,))
    pool = ThreadPoolExecutor(1)
    try:
        pending = pool.submit(roll, api, sid, token)
        try:
            answer = pending.result(timeout=HANG_BOUND_SECONDS)
        finally:
            holder.rollback()
        return answer
    finally:
        pool.shutdown()


@pytest.mark.postgres
def test_a_held_session_lock_answers_503_with_retry_after_and_frees_after_release(
    postgres_api: Api, app_role: Holder
) -> None:
    api = postgres_api
    table = open_table(api)
    before = api.services.app.session("mira", table.sid).version
    busy = roll_while_held(api, app_role, table.sid, table.ann)
    assert busy.status_code == 503
    assert busy.headers["content-type"] == "application/problem+json"
    assert busy.json()["type"] == "/problems/session-busy"
    assert busy.headers["retry-after"] == "1"
    assert api.services.app.session("mira", table.sid).version == before
    # Released, the same request rolls: the busy answer changed nothing, key included.
    after = roll(api, table.sid, table.ann)
    assert after.status_code == 201 and "idempotency-replayed" not in after.headers
    assert api.services.app.session("mira", table.sid).version > before


@pytest.mark.postgres
def test_a_role_that_may_only_read_cannot_lock_a_session_and_its_rolls_go_on(
    postgres_api: Api, reader: Holder
) -> None:
    api = postgres_api
    table = open_table(api)
    first = api.roll(table.sid, table.ann, CHECK)  # the session's lock row exists now
    assert first.status_code == 201
    locking = "SELECT 1 FROM session_locks WHERE stream_id = %s FOR UPDATE"
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
        reader.execute(locking, (table.sid,))
    reader.rollback()
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
        reader.execute("LOCK TABLE session_locks IN SHARE MODE")
    reader.rollback()
    # All the reader can hold, held in an open transaction while the table rolls on.
    reader.execute("LOCK TABLE session_locks IN ACCESS SHARE MODE")
    reader.execute("SELECT * FROM session_locks, events")
    try:
        before = api.services.app.session("mira", table.sid).version
        pool = ThreadPoolExecutor(1)
        try:
            answer = pool.submit(roll, api, table.sid, table.bob).result(HANG_BOUND_SECONDS)
        finally:
            pool.shutdown()
        assert answer.status_code == 201
        assert api.services.app.session("mira", table.sid).version > before
    finally:
        reader.rollback()


@pytest.mark.postgres
def test_an_insert_that_collides_under_the_lock_answers_503_and_records_nothing(
    postgres_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every writer appends under the session's lock, so a PostgreSQL append takes no
    # savepoint. Here a writer that skips the lock (a hand-written INSERT) commits the
    # next version between the roll's version check and its insert: the insert collides,
    # the transaction is void, and the roll answers busy with nothing of it recorded.
    api = postgres_api
    table = open_table(api)
    before = api.services.app.session("mira", table.sid).version
    insert = SqlEventStore._insert

    def lock_skipper_first(connection: Connection, records: Any) -> list[int]:
        stranger = to_row(dataclasses.replace(records[0], event_id=str(uuid.uuid4())))
        with api.db.begin() as other:
            other.execute(events.insert(), stranger)
        return insert(connection, records)

    monkeypatch.setattr(SqlEventStore, "_insert", staticmethod(lock_skipper_first))
    busy = roll(api, table.sid, table.ann)
    assert busy.status_code == 503, busy.text
    assert busy.json()["type"] == "/problems/session-busy"
    assert busy.headers["retry-after"] == "1"
    versions = stored_versions(api, table.sid)
    assert versions == list(range(1, before + 2))  # the stranger's row alone
    # Its retry is told of the stranger's row, as of any row changed by another path.
    monkeypatch.setattr(SqlEventStore, "_insert", staticmethod(insert))
    retried = roll(api, table.sid, table.ann)
    assert retried.status_code == 409 and retried.json()["type"] == "/problems/log-tampered"


@pytest.fixture
def sqlite_api(request: pytest.FixtureRequest) -> Iterator[Api]:
    yield from served_api("sqlite", request)


def test_a_sqlite_conflict_after_a_write_answers_503_and_records_nothing(
    sqlite_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A SQLite append takes no savepoint either: under BEGIN IMMEDIATE and the session's
    # lock a conflict is found before any write. Should one come after a write all the
    # same (here the batch is written, then a conflict is raised), the attempt cannot be
    # undone alone: the roll answers busy, and none of its rows is committed.
    api = sqlite_api
    table = open_table(api)
    before = api.services.app.session("mira", table.sid).version
    write = SqliteAppend._write

    def written_then_conflict(self: SqliteAppend, *args: Any) -> Any:
        write(self, *args)
        raise ConcurrencyError("another writer appended to the stream first")

    monkeypatch.setattr(SqliteAppend, "_write", written_then_conflict)
    busy = roll(api, table.sid, table.ann)
    assert busy.status_code == 503, busy.text
    assert busy.json()["type"] == "/problems/session-busy"
    versions = stored_versions(api, table.sid)
    assert versions == list(range(1, before + 1))
    monkeypatch.setattr(SqliteAppend, "_write", write)
    assert roll(api, table.sid, table.ann).status_code == 201  # the session still takes rolls

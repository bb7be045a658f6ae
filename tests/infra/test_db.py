"""Where the database is, how SQLite is set up, and the one-line errors a user can meet."""

from __future__ import annotations

import sys
import threading
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.pool import QueuePool

from diceledger.domain.errors import StoreUnavailableError
from diceledger.domain.hashchain import ChainHead
from diceledger.infra.store.database import (
    make_engine,
    normalize_url,
    resolve_url,
    upgrade,
    write_connection,
)
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events
from diceledger.infra.store.sealing import seal
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.support import new_event


def test_an_explicit_url_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICELEDGER_DB", "sqlite:///from-env.sqlite")
    assert resolve_url("sqlite:///explicit.sqlite") == "sqlite:///explicit.sqlite"
    assert resolve_url(None) == "sqlite:///from-env.sqlite"


def test_the_default_is_a_file_in_the_user_data_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DICELEDGER_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = resolve_url(None)
    assert url == f"sqlite:///{tmp_path / 'data' / 'diceledger' / 'diceledger.sqlite'}"
    assert (tmp_path / "data" / "diceledger").is_dir()


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_plain_postgres_urls_use_the_psycopg_driver(scheme: str) -> None:
    assert normalize_url(f"{scheme}://u@h/db") == "postgresql+psycopg://u@h/db"
    assert resolve_url(f"{scheme}://u@h/db") == "postgresql+psycopg://u@h/db"


def test_sqlite_runs_in_wal_with_full_sync_and_a_busy_timeout(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    try:
        with engine.connect() as connection:
            pragma = connection.exec_driver_sql
            assert pragma("PRAGMA journal_mode").scalar() == "wal"
            assert pragma("PRAGMA synchronous").scalar() == 2  # FULL
            assert pragma("PRAGMA busy_timeout").scalar() == 10_000
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("not a url", "not a usable database URL"),
        ("nosuchdb://x/y", "unsupported database URL nosuchdb://x/y"),
        ("mysql://x@y/z", "unsupported database URL mysql://x@y/z: use sqlite:/// or"),
        ("postgresql://postgres@127.0.0.1:1/test", "cannot use the database"),
        ("sqlite:////nonexistent-folder/x/y.sqlite", "unable to open database file"),
    ],
)
def test_unusable_urls_give_one_line_errors(url: str, fragment: str) -> None:
    with pytest.raises(StoreUnavailableError) as raised:
        engine = make_engine(url)
        SqlEventStore(engine).head_position()
    assert fragment in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_password_never_appears_in_an_error() -> None:
    with pytest.raises(StoreUnavailableError) as raised:
        SqlEventStore(make_engine("postgresql://u:s3cret@127.0.0.1:1/db")).head_position()
    assert "s3cret" not in str(raised.value)


def test_a_sqlite_writer_waits_out_a_short_lock(sqlite_url: str) -> None:
    holder = make_engine(sqlite_url)
    waiter = make_engine(sqlite_url)
    released = threading.Event()
    try:
        with write_connection(holder) as connection, connection.begin():
            threading.Timer(0.2, released.set).start()
            appended: list[int] = []
            thread = threading.Thread(
                target=lambda: appended.extend(
                    r.position
                    for r in SqlEventStore(waiter).append("s1", [new_event()], expected_version=0)
                )
            )
            thread.start()
            released.wait()
        thread.join()
        assert appended == [1]
    finally:
        holder.dispose()
        waiter.dispose()


def test_sqlite_writers_of_one_process_queue_for_the_lock_holding_no_connection(
    sqlite_url: str,
) -> None:
    # SQLite has one writer at a time. Writers that wait inside SQLite's busy handler each
    # hold a pooled connection and retry on a sleep of up to 100 ms, in no order: under a
    # busy night the tail grew with the clients (docs/performance.md, W7). In one process
    # they queue before taking a connection, and all of them still write.
    holder = make_engine(sqlite_url)
    waiter = make_engine(sqlite_url)  # another engine on the same file: the same queue
    writers = 20  # more than the pool's 15 connections
    appended: list[int] = []
    try:
        with write_connection(holder) as connection, connection.begin():
            threads = [
                threading.Thread(
                    target=lambda n=n: appended.extend(
                        r.position for r in SqlEventStore(waiter).append(f"s{n}", [new_event()], 0)
                    )
                )
                for n in range(writers)
            ]
            for thread in threads:
                thread.start()

            # Parked: in the process's queue, in the pool's, or in SQLite's busy handler
            # (a BEGIN that waits for the write lock).
            def waits(frame: traceback.FrameSummary) -> bool:
                return frame.name in ("one_writer", "_do_get") or "BEGIN" in (frame.line or "")

            deadline = time.monotonic() + 10

            def parked() -> int:
                frames = sys._current_frames()
                return sum(
                    any(waits(f) for f in traceback.extract_stack(frames[t.ident]))
                    for t in threads
                    if t.ident in frames
                )

            while parked() < writers and time.monotonic() < deadline:
                time.sleep(0.01)
            assert parked() == writers
            pool = waiter.pool
            assert isinstance(pool, QueuePool)
            assert pool.checkedout() == 0  # main: 15, each waiting in the busy handler
        for thread in threads:
            thread.join(timeout=30)
        assert sorted(appended) == list(range(1, writers + 1))
    finally:
        holder.dispose()
        waiter.dispose()


def test_a_sqlite_writer_queued_past_the_busy_timeout_gets_the_same_clear_error(
    sqlite_url: str,
) -> None:
    holder = make_engine(sqlite_url)
    impatient = make_engine(sqlite_url, busy_timeout_ms=50)
    failed: list[BaseException] = []

    def append() -> None:
        try:
            SqlEventStore(impatient).append("s1", [new_event()], expected_version=0)
        except BaseException as error:
            failed.append(error)

    try:
        with write_connection(holder) as connection, connection.begin():
            thread = threading.Thread(target=append)  # another thread: it queues
            thread.start()
            thread.join(timeout=30)
        assert [type(error) for error in failed] == [StoreUnavailableError]
        assert "locked by another writer past the busy timeout" in str(failed[0])
        assert SqlEventStore(holder).current_version("s1") == 0  # nothing written
    finally:
        holder.dispose()
        impatient.dispose()


def test_a_sqlite_lock_held_past_the_busy_timeout_is_a_clear_error(sqlite_url: str) -> None:
    holder = make_engine(sqlite_url)
    impatient = make_engine(sqlite_url, busy_timeout_ms=50)
    try:
        with write_connection(holder) as connection, connection.begin():
            with pytest.raises(StoreUnavailableError, match="locked by another writer"):
                SqlEventStore(impatient).append("s1", [new_event()], expected_version=0)
    finally:
        holder.dispose()
        impatient.dispose()


def test_a_postgres_append_kept_waiting_by_another_writer_is_a_clear_error(
    postgres_url: str,
) -> None:
    # Another writer has inserted version 1 of the same session and not committed: the
    # append's insert waits on the unique (stream, version) index, up to the lock timeout.
    upgrade(postgres_url)
    holder = make_engine(postgres_url)
    engine = make_engine(postgres_url)
    try:
        with holder.begin() as connection:
            (record,) = seal("s1", [new_event()], ChainHead(), datetime.now(UTC))
            connection.execute(events.insert(), to_row(record))
            store = SqlEventStore(engine, lock_timeout_ms=100)
            with pytest.raises(StoreUnavailableError, match="timed out waiting"):
                store.append("s1", [new_event()], expected_version=0)
            assert SqlEventStore(engine).append("s2", [new_event()], expected_version=0)
        assert SqlEventStore(engine).append("s1", [new_event()], expected_version=1)
    finally:
        holder.dispose()
        engine.dispose()


def test_a_missing_postgres_database_is_a_clear_error(postgres_url: str) -> None:
    url = sa.make_url(postgres_url).set(database="diceledger_no_such_db").render_as_string(False)
    with pytest.raises(StoreUnavailableError, match='database "diceledger_no_such_db" does not'):
        SqlEventStore(make_engine(url)).head_position()

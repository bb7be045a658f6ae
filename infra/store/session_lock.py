"""Locks that order one session's append-and-sign steps across threads and processes.

An append and the ledger extend that follows it must not interleave with another
writer's on the same session, or each would see the other's events as rows it was not
told about. PostgreSQL: a session-level advisory lock held on a connection of its own
(any number of machines). SQLite: an exclusive ``flock`` on a file beside the database
(a SQLite file has one machine's writers). Threads of one process also queue on a
per-session lock, since ``flock`` is per open file.

The advisory lock is waited for at most ``LOCK_WAIT_MS``: an append-and-sign holds it
for milliseconds, and any role that may connect to the database can take an advisory
lock, so a holder past the wait is stuck or hostile. The writer then gives up with
``SessionBusyError`` before writing anything, rather than hang.
"""

from __future__ import annotations

import fcntl
import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Connection, Engine

from diceledger.domain.errors import SessionBusyError
from diceledger.infra.store.database import translate_errors

SESSION_LOCK = b"diceledger/ledger/session/"
EXTEND_LOCK = b"diceledger/ledger/extend/"
LOCK_FILE_SUFFIX = ".ledger-lock"
LOCK_WAIT_MS = 500
RETRY_AFTER_SECONDS = 1
LOCK_NOT_AVAILABLE = "55P03"  # PostgreSQL's SQLSTATE when lock_timeout ends a wait

_LOCAL_LOCKS: dict[str, threading.Lock] = {}
_LOCAL_LOCKS_GUARD = threading.Lock()


def lock_key(prefix: bytes, stream_id: str) -> int:
    """Return a PostgreSQL advisory lock key (a signed 64-bit integer) for a session."""
    digest = hashlib.sha256(prefix + stream_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@contextmanager
def hold_session(engine: Engine, stream_id: str) -> Iterator[None]:
    """Hold the session's lock until the block ends."""
    with _local_lock(stream_id):
        if engine.dialect.name == "postgresql":
            with _advisory_lock(engine, stream_id):
                yield
            return
        with _file_lock(engine):
            yield


def _local_lock(stream_id: str) -> threading.Lock:
    with _LOCAL_LOCKS_GUARD:
        return _LOCAL_LOCKS.setdefault(stream_id, threading.Lock())


@contextmanager
def _advisory_lock(engine: Engine, stream_id: str) -> Iterator[None]:
    key = lock_key(SESSION_LOCK, stream_id)
    with translate_errors(engine.url), engine.connect() as connection:
        _take(connection, key, stream_id)
        try:
            yield
        finally:
            connection.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            connection.commit()


# One round trip: the subquery sets the transaction's lock_timeout (SET LOCAL, so the bound
# ends with this transaction, not with the pooled connection) before the lock is asked
# for; a volatile function keeps PostgreSQL from flattening it away. The session-level
# lock outlives the commit.
TAKE = sa.text(
    "SELECT pg_advisory_lock(:key) FROM (SELECT set_config('lock_timeout', :wait, true)) AS bound"
)


def _take(connection: Connection, key: int, stream_id: str) -> None:
    try:
        connection.execute(TAKE, {"key": key, "wait": f"{LOCK_WAIT_MS}ms"})
    except exc.OperationalError as error:
        if getattr(error.orig, "sqlstate", None) != LOCK_NOT_AVAILABLE:
            raise
        connection.rollback()
        raise SessionBusyError(stream_id, RETRY_AFTER_SECONDS) from None
    connection.commit()


# The same bounded wait for a lock held until the caller's transaction ends: the bound is
# put back once the lock is held, so it bounds this wait alone, not the transaction's others.
TAKE_FOR_TRANSACTION = sa.text(
    "SELECT pg_advisory_xact_lock(:key), previous FROM (SELECT current_setting('lock_timeout')"
    " AS previous, set_config('lock_timeout', :wait, true)) AS bound"
)
RESTORE_WAIT = sa.text("SELECT set_config('lock_timeout', :previous, true)")


def hold_for_transaction(connection: Connection, key: int, stream_id: str) -> None:
    """Take advisory lock ``key`` until ``connection``'s transaction ends, waiting at most
    ``LOCK_WAIT_MS``; raise SessionBusyError past that (the transaction is then void)."""
    try:
        row = connection.execute(TAKE_FOR_TRANSACTION, {"key": key, "wait": f"{LOCK_WAIT_MS}ms"})
    except exc.OperationalError as error:
        if getattr(error.orig, "sqlstate", None) != LOCK_NOT_AVAILABLE:
            raise
        raise SessionBusyError(stream_id, RETRY_AFTER_SECONDS) from None
    connection.execute(RESTORE_WAIT, {"previous": row.one().previous})


@contextmanager
def _file_lock(engine: Engine) -> Iterator[None]:
    database = engine.url.database
    if not database or database == ":memory:":
        yield  # one process holds the whole database: the thread lock is enough
        return
    path = Path(database).with_name(Path(database).name + LOCK_FILE_SUFFIX)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

"""Locks that order one session's append-and-sign steps across threads and processes.

An append and the ledger extend that follows it must not interleave with another
writer's on the same session, or each would see the other's events as rows it was not
told about. PostgreSQL: a row of ``session_locks`` locked FOR UPDATE (any number of
machines). SQLite: an exclusive ``flock`` on a file beside the database (a SQLite file
has one machine's writers). Threads of one process also queue on a per-session lock,
since ``flock`` is per open file.

Why a row and not an advisory lock: PostgreSQL checks no privilege for an advisory lock,
so any role that may connect could hold a session's and stall its rolls. Locking a row
needs UPDATE on its table, which only the app role is granted (docs/storage.md). A role
that may read the table gets ``permission denied`` for FOR UPDATE, and the weakest table
lock a reader may take (ACCESS SHARE) does not stand in a row lock's way.

The lock is waited for at most ``LOCK_WAIT_MS``: an append-and-sign holds it for
milliseconds, so a holder past the wait is stuck. The writer then gives up with
``SessionBusyError`` before writing anything, rather than hang.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Connection, Engine

from diceledger.domain.errors import SessionBusyError
from diceledger.infra.store.database import translate_errors

# Each session has two lock rows: ``session`` orders its append-and-sign steps (and an
# import's); ``extend`` orders the ledger's extends, which run inside an import's hold.
Purpose = Literal["session", "extend"]
LOCK_FILE_SUFFIX = ".ledger-lock"
LOCK_WAIT_MS = 500
RETRY_AFTER_SECONDS = 1
LOCK_NOT_AVAILABLE = "55P03"  # PostgreSQL's SQLSTATE when lock_timeout ends a wait

_LOCAL_LOCKS: dict[str, threading.Lock] = {}
_LOCAL_LOCKS_GUARD = threading.Lock()


@contextmanager
def hold_session(engine: Engine, stream_id: str) -> Iterator[None]:
    """Hold the session's lock until the block ends (its writes run in transactions of
    their own: on PostgreSQL the lock is a transaction of its own, open until the end)."""
    with _local_lock(stream_id):
        if engine.dialect.name == "postgresql":
            with _row_lock(engine, stream_id):
                yield
            return
        with _file_lock(engine):
            yield


def _local_lock(stream_id: str) -> threading.Lock:
    with _LOCAL_LOCKS_GUARD:
        return _LOCAL_LOCKS.setdefault(stream_id, threading.Lock())


@contextmanager
def _row_lock(engine: Engine, stream_id: str) -> Iterator[None]:
    with translate_errors(engine.url), engine.connect() as connection, connection.begin():
        hold_for_transaction(connection, stream_id, "session")
        yield  # the transaction wrote nothing: its end, commit or rollback, frees the row


# One round trip: the first subquery sets the transaction's lock_timeout (SET LOCAL), the
# lateral one then locks the row under that bound (its reference to ``bound`` makes it run
# second), and the select list puts the previous bound back, so it bounds this wait alone.
# Volatile functions keep PostgreSQL from flattening the subqueries away. ``held`` is NULL
# when the session has no lock row yet.
TAKE = sa.text(
    "SELECT bound.previous, set_config('lock_timeout', bound.previous, true) AS restored,"
    " taken.held"
    " FROM (SELECT current_setting('lock_timeout') AS previous,"
    " set_config('lock_timeout', :wait, true) AS waiting) AS bound"
    " LEFT JOIN LATERAL (SELECT true AS held FROM session_locks"
    " WHERE stream_id = :stream_id AND purpose = :purpose AND bound.waiting IS NOT NULL"
    " FOR UPDATE) AS taken ON true"
)
# A session's first lock makes its row in the same transaction, under the same bound: until
# it commits, another writer's insert of that row waits on it as on the lock itself.
CREATE = sa.text(
    "INSERT INTO session_locks (stream_id, purpose)"
    " SELECT :stream_id, :purpose FROM (SELECT set_config('lock_timeout', :wait, true)) AS bound"
    " ON CONFLICT DO NOTHING"
)
RESTORE_WAIT = sa.text("SELECT set_config('lock_timeout', :previous, true)")


def hold_for_transaction(connection: Connection, stream_id: str, purpose: Purpose) -> None:
    """Lock the session's ``purpose`` row until ``connection``'s transaction ends, waiting
    at most ``LOCK_WAIT_MS``; raise SessionBusyError past that (the transaction is then
    void). The row is made first if the session has none."""
    parameters = {"stream_id": stream_id, "purpose": purpose, "wait": f"{LOCK_WAIT_MS}ms"}
    try:
        taken = connection.execute(TAKE, parameters).one()
        if taken.held:
            return
        connection.execute(CREATE, parameters)
        connection.execute(TAKE, parameters)
        connection.execute(RESTORE_WAIT, {"previous": taken.previous})
    except exc.OperationalError as error:
        if getattr(error.orig, "sqlstate", None) != LOCK_NOT_AVAILABLE:
            raise
        raise SessionBusyError(stream_id, RETRY_AFTER_SECONDS) from None


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

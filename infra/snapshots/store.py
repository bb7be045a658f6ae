"""Persisted session snapshots: a long session's state, read back instead of replayed.

A snapshot is a cache of ``replay(log)`` and is never trusted over the log. ``load``
uses a row only when it was written by this code's fold (``FOLD_VERSION``, and the event
shapes the codec checks) and the store still holds, at the version the row claims, an
event with the hash it claims; the caller then folds the events after it. Anything else
(no row, another fold, a head the log does not hold, text that does not decode, a
database error) reads as no snapshot, and the session is replayed from the log.

``save`` is best effort: a snapshot that cannot be written (a lost race, a read-only
database, a missing grant) is skipped, and no command ever fails for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Engine

from diceledger.domain.errors import DiceledgerError
from diceledger.domain.session.state import FOLD_VERSION, SessionState
from diceledger.infra.snapshots.codec import Head, SnapshotUnreadableError, decode_state, encode
from diceledger.infra.snapshots.schema import session_snapshots
from diceledger.infra.store.database import read_connection, write_connection
from diceledger.infra.store.port import Clock, utc_now
from diceledger.infra.store.schema import events

log = logging.getLogger(__name__)

Steady = Callable[[], AbstractContextManager[object]]  # held, nothing changes the state


class SnapshotStore:
    """Read and write the ``session_snapshots`` table of one database."""

    def __init__(self, engine: Engine, clock: Clock = utc_now) -> None:
        self._engine = engine
        self._clock = clock
        self._writable: bool | None = None  # asked once, before the first encoding

    def load(self, stream_id: str) -> SessionState | None:
        """Return the session's snapshot state if it checks against the log, else None."""
        snap, event = session_snapshots, events
        query = (
            sa.select(snap.c.stream_version, snap.c.event_hash, snap.c.state, event.c.hash)
            .select_from(
                snap.outerjoin(
                    event,
                    sa.and_(
                        event.c.stream_id == snap.c.stream_id,
                        event.c.stream_version == snap.c.stream_version,
                    ),
                )
            )
            .where(snap.c.stream_id == stream_id, snap.c.fold_version == FOLD_VERSION)
        )
        try:
            with read_connection(self._engine) as connection:
                row = connection.execute(query).first()
        except exc.SQLAlchemyError as error:  # no table yet, no grant: replay instead
            log.info("session snapshot of %s not read: %s", stream_id, error)
            return None
        if row is None or row.hash is None or row.hash != row.event_hash:
            return None  # none, or a head the log does not hold: the log decides
        try:
            state = decode_state(row.state)
        except SnapshotUnreadableError as error:
            log.info("session snapshot of %s ignored: %s", stream_id, error)
            return None
        if state.version != row.stream_version or state.session_id != stream_id:
            return None
        return state

    def save(self, state: SessionState, head: Head, steady: Steady) -> bool:
        """Write ``state``, folded up to ``head``, as the session's snapshot; False if not.

        ``state`` is encoded while ``steady()`` is held: the lock no command folds into it
        without. A snapshot is written after its command's transaction, when another
        command may already be changing the same state; one that moved it past ``head``
        leaves this snapshot to a later one.
        """
        if state.session_id is None:
            return False
        try:
            if not self._may_write():
                return False
            with steady():
                if state.version != head.version:
                    return False
                text = encode(state)
            row = {
                "stream_id": state.session_id,
                "fold_version": FOLD_VERSION,
                "stream_version": head.version,
                "event_hash": head.hash,
                "state": text,
                "written_at": self._clock(),
            }
            with write_connection(self._engine) as connection, connection.begin():
                _upsert(connection, row)
        except (exc.SQLAlchemyError, DiceledgerError) as error:
            log.info("session snapshot of %s not written: %s", state.session_id, error)
            return False
        return True

    def _may_write(self) -> bool:
        """Tell whether this role may write snapshots, so a missing grant costs no encoding.

        A fresh process without a usable snapshot would otherwise encode a long session's
        whole state after every command, only to have the write refused.
        """
        if self._writable is None:
            if self._engine.dialect.name != "postgresql":
                self._writable = True
            else:
                query = sa.text(
                    "SELECT has_table_privilege('session_snapshots', 'INSERT')"
                    " AND has_table_privilege('session_snapshots', 'UPDATE')"
                )
                with read_connection(self._engine) as connection:
                    self._writable = bool(connection.scalar(query))
        return self._writable


_SNAPSHOT_FIELDS = ("fold_version", "stream_version", "event_hash", "state", "written_at")


def _upsert(connection: sa.Connection, row: dict[str, object]) -> None:
    """Write the session's one snapshot row, replacing an older one.

    The dialect is imported here, so a SQLite process never loads PostgreSQL's (start-up
    time: tests/cli/test_startup_imports.py).
    """
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        pg_insert = postgresql.insert(session_snapshots)
        pg_set = {name: pg_insert.excluded[name] for name in _SNAPSHOT_FIELDS}
        connection.execute(
            pg_insert.on_conflict_do_update(index_elements=["stream_id"], set_=pg_set), row
        )
        return
    from sqlalchemy.dialects import sqlite

    lite_insert = sqlite.insert(session_snapshots)
    lite_set = {name: lite_insert.excluded[name] for name in _SNAPSHOT_FIELDS}
    connection.execute(
        lite_insert.on_conflict_do_update(index_elements=["stream_id"], set_=lite_set), row
    )

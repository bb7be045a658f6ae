"""Appends on SQLite through the driver's own connection: the hot path of a local store.

SQLAlchemy Core cost more CPU per append than SQLite took to write it (cache keys,
compiling, binding three statements). Here the pooled connection's sqlite3 connection
runs three prepared statements: BEGIN IMMEDIATE, the stream's head, the INSERT. Nothing
asks first whether the batch is recorded already: a repeated event id meets the unique
index, and the caller resolves the retry as on every backend (``SqlEventStore.append``).

The rows are byte for byte those SQLAlchemy writes: the same columns, the time in its
format, ``data`` and ``meta`` as its JSON type serialises them (``json.dumps`` with its
defaults, not the canonical text the hash covers), so stored bytes are unchanged.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from sqlalchemy import exc
from sqlalchemy.engine import Connection, Engine

from diceledger.domain.errors import ConcurrencyError
from diceledger.domain.hashchain import ChainHead
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.infra.store.database import one_writer
from diceledger.infra.store.port import Clock
from diceledger.infra.store.sealing import seal, with_positions

HEAD = (
    "SELECT stream_version, hash FROM events WHERE stream_id = ?"
    " ORDER BY stream_version DESC LIMIT 1"
)
INSERT = (
    "INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,"
    " data, meta, recorded_at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
LAST_POSITION = "SELECT last_insert_rowid()"
Row = tuple[str, str, int, str, int, str, str, str, str, str]


class SqliteAppend:
    """Append one batch to one stream in one transaction, at the driver's level."""

    def __init__(self, engine: Engine, clock: Clock) -> None:
        self._engine = engine
        self._clock = clock

    def __call__(
        self, stream_id: str, events: Sequence[NewEvent], expected_version: int
    ) -> list[RecordedEvent]:
        """Write a checked, non-empty batch; ConcurrencyError when the head moved or an id
        is recorded already (the caller tells a retry from a conflict)."""
        with one_writer(self._engine):
            return self._write_alone(stream_id, events, expected_version)

    def _write_alone(
        self, stream_id: str, events: Sequence[NewEvent], expected_version: int
    ) -> list[RecordedEvent]:
        pooled = self._engine.raw_connection()
        try:
            driver = pooled.driver_connection
            assert isinstance(driver, sqlite3.Connection)
            with _as_sqlalchemy_errors():
                # The engine leaves the driver in autocommit (infra.store.database): the transaction
                # is ours to begin, and BEGIN IMMEDIATE takes the write lock at once.
                driver.execute("BEGIN IMMEDIATE")
                try:
                    recorded = self._write(driver, stream_id, events, expected_version)
                    driver.commit()
                finally:
                    if driver.in_transaction:
                        driver.rollback()
            return recorded
        finally:
            pooled.close()

    def on(
        self,
        connection: Connection,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
    ) -> list[RecordedEvent]:
        """Write the batch on ``connection``, in the transaction it holds (not committed)."""
        driver = connection.connection.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        with _as_sqlalchemy_errors():
            return self._write(driver, stream_id, events, expected_version)

    def _write(
        self,
        driver: sqlite3.Connection,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
    ) -> list[RecordedEvent]:
        row = driver.execute(HEAD, (stream_id,)).fetchone()
        head = ChainHead() if row is None else ChainHead(row[0], row[1])
        if head.version != expected_version:
            raise ConcurrencyError(
                f"stream {stream_id} is at version {head.version}, expected {expected_version}"
            )
        sealed = seal(stream_id, events, head, self._clock())
        # One time for the whole batch, in the text SQLAlchemy would have stored.
        recorded_at = _sqlalchemy_datetime(sealed[0].recorded_at)
        rows = [_row(each, recorded_at) for each in sealed]
        try:
            if len(rows) == 1:
                last = driver.execute(INSERT, rows[0]).lastrowid
            else:
                driver.executemany(INSERT, rows)
                last = driver.execute(LAST_POSITION).fetchone()[0]
        except sqlite3.IntegrityError:
            # The head was read under the write lock, so only a recorded event id collides.
            raise ConcurrencyError("another writer appended to the stream first") from None
        assert isinstance(last, int)
        # The write lock is held since BEGIN IMMEDIATE and the table is AUTOINCREMENT: the
        # batch's rows took the consecutive rowids ending at the last one.
        first = last - len(rows) + 1
        return with_positions(sealed, range(first, last + 1))


def _row(sealed: RecordedEvent, recorded_at: str) -> Row:
    return (
        sealed.event_id,
        sealed.stream_id,
        sealed.stream_version,
        sealed.event_type,
        sealed.schema_version,
        _sqlalchemy_json(sealed.data),
        _sqlalchemy_json(sealed.meta),
        recorded_at,
        sealed.prev_hash,
        sealed.hash,
    )


def _json_dumps_encoder() -> Callable[[Any], str]:
    """Return json.dumps with its defaults, the C encoder built once rather than per call.

    No circular-reference markers: sealing has walked the value and refused a cycle.
    """
    if c_make_encoder is None:  # a Python without the C accelerator
        return json.dumps

    def refuse(value: Any) -> Any:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    chunks = c_make_encoder(
        None, refuse, encode_basestring_ascii, None, ": ", ", ", False, False, True
    )
    return lambda value: "".join(chunks(value, 0))


# What SQLAlchemy's JSON type stores on SQLite: json.dumps(value).
_sqlalchemy_json = _json_dumps_encoder()


def _sqlalchemy_datetime(moment: datetime) -> str:
    # The text SQLAlchemy's SQLite DateTime stores: naive UTC, six fractional digits.
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


@contextmanager
def _as_sqlalchemy_errors() -> Iterator[None]:
    # Raise driver errors as SQLAlchemy does, so translate_errors words them as always.
    try:
        yield
    except sqlite3.Error as error:
        raise exc.DBAPIError.instance(None, None, error, sqlite3.Error) from error

"""The event store on SQLAlchemy Core: SQLite and PostgreSQL differ only by URL."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Connection, Engine

from diceledger.domain.errors import ConcurrencyError
from diceledger.domain.hashchain import ChainHead
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.infra.store.database import read_connection, translate_errors, write_connection
from diceledger.infra.store.horizon import LAST_IN_READ_ORDER, read_settled
from diceledger.infra.store.importing import plan_import
from diceledger.infra.store.mapper import from_row, to_row
from diceledger.infra.store.port import READ_BATCH_SIZE, Clock, EventData, EventStore, utc_now
from diceledger.infra.store.prepared import Prepared
from diceledger.infra.store.schema import events
from diceledger.infra.store.sealing import check_batch, resolve_retry, seal, with_positions
from diceledger.infra.store.sqlite_append import SqliteAppend
from diceledger.infra.store.transaction import in_transaction, writing

DEFAULT_LOCK_TIMEOUT_MS = 5_000
DEFAULT_SETTLE_TIMEOUT_MS = 5_000

# Built once: constructing statements per call cost more CPU than running them.
_COLUMNS = (
    events.c.event_id,
    events.c.stream_id,
    events.c.position,
    events.c.stream_version,
    events.c.hash,
)
_LATEST_VERSION = (
    sa.select(sa.func.max(events.c.stream_version))
    .where(events.c.stream_id == sa.bindparam("stream_id"))
    .scalar_subquery()
)
BATCH_IDS_AND_HEAD = sa.union_all(
    sa.select(*_COLUMNS).where(events.c.event_id.in_(sa.bindparam("event_ids", expanding=True))),
    sa.select(*_COLUMNS).where(
        events.c.stream_id == sa.bindparam("stream_id"),
        events.c.stream_version == _LATEST_VERSION,
    ),
)
# On PostgreSQL the same round trip sets the transaction's lock_timeout (SET LOCAL): an
# insert that meets another writer's uncommitted row of the same stream version or event
# id waits for that writer, and the timeout bounds the wait. The row of NULLs it adds is
# ignored. A volatile function keeps PostgreSQL from flattening the subquery away.
_LOCK_TIMEOUT_SET = sa.select(
    sa.func.set_config("lock_timeout", sa.bindparam("lock_timeout"), True).label("timeout")
).subquery("timeout")
BATCH_IDS_AND_HEAD_AND_TIMEOUT: sa.CompoundSelect[Any] = sa.union_all(
    *BATCH_IDS_AND_HEAD.selects,
    sa.select(
        *(sa.cast(sa.null(), column.type).label(column.name) for column in _COLUMNS)
    ).select_from(_LOCK_TIMEOUT_SET),
)
# read_all_data on SQLite, as plain SQL (its errors still translated): the data column as
# its stored text, left for the fold to decode (SQLAlchemy's JSON type and rows cost more
# per event than the decoding itself), and none of the envelope columns a fold doesn't read.
_SQLITE_DATA_PAGE = (
    "SELECT position, stream_id, stream_version, event_type, schema_version, data"
    " FROM events WHERE position > ? ORDER BY position LIMIT ?"
)
INSERT_RETURNING_POSITIONS = events.insert().returning(events.c.event_id, events.c.position)
# Every command's load asks it first (SessionService._caught_up): see infra/store/prepared.py.
_STREAM_VERSION = Prepared(
    sa.select(sa.func.max(events.c.stream_version)).where(
        events.c.stream_id == sa.bindparam("stream_id")
    )
)


class SqlEventStore(EventStore):
    """Keep events in the ``events`` table; every append is one transaction.

    On PostgreSQL appends to different streams run in parallel and ``read_all`` reads below
    the oldest transaction in progress (infra/store/horizon.py); SQLite has one writer.
    ``fast=False`` keeps SQLite's appends on the Core path too: the reference the driver-level
    path (sqlite_append.py) is tested against.
    """

    def __init__(
        self,
        engine: Engine,
        clock: Clock = utc_now,
        lock_timeout_ms: int = DEFAULT_LOCK_TIMEOUT_MS,
        batch_size: int = READ_BATCH_SIZE,
        settle_timeout_ms: int = DEFAULT_SETTLE_TIMEOUT_MS,
        *,
        fast: bool = True,
    ) -> None:
        self._engine = engine
        self._clock = clock
        self._lock_timeout_ms = int(lock_timeout_ms)
        self._batch_size = batch_size
        self._settle_seconds = settle_timeout_ms / 1000
        # SQLite appends at the driver's level (sqlite_append.py); PostgreSQL through Core.
        self._sqlite_append = (
            SqliteAppend(engine, clock) if engine.dialect.name == "sqlite" and fast else None
        )

    def append(
        self, stream_id: str, events_: Sequence[NewEvent], expected_version: int
    ) -> list[RecordedEvent]:
        check_batch(stream_id, events_)
        if not events_:
            return []
        try:
            if self._sqlite_append is not None and not in_transaction(self._engine):
                with translate_errors(self._engine.url):
                    return self._sqlite_append(stream_id, events_, expected_version)
            # Inside a request's transaction (the ledger's append-and-sign), join it.
            with writing(self._engine) as connection:
                if self._sqlite_append is not None:
                    return self._sqlite_append.on(connection, stream_id, events_, expected_version)
                outcome = self._retry_or_head(connection, stream_id, events_, expected_version)
                if isinstance(outcome, list):
                    return self._records_at(connection, outcome)
                sealed = seal(stream_id, events_, outcome, self._clock())
                return with_positions(sealed, self._insert(connection, sealed))
        except ConcurrencyError:
            # A retry racing its own first attempt cannot see that attempt's uncommitted
            # rows, so its insert waits on the unique event ids and then collides with
            # them. Once that attempt has committed, answer as to any retry.
            original = self._recorded_batch(stream_id, events_)
            if original is None:
                raise
            return original

    def _recorded_batch(
        self, stream_id: str, events_: Sequence[NewEvent]
    ) -> list[RecordedEvent] | None:
        """Return a batch recorded in full as it was recorded, None if none of it is."""
        query = sa.select(events.c.event_id, events.c.stream_id, events.c.position).where(
            events.c.event_id.in_([event.event_id for event in events_])
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            recorded = {
                row.event_id: (row.stream_id, row.position) for row in connection.execute(query)
            }
            positions = resolve_retry(stream_id, events_, recorded)
            return None if positions is None else self._records_at(connection, positions)

    @staticmethod
    def _records_at(connection: Connection, positions: list[int]) -> list[RecordedEvent]:
        """Return the records at ``positions`` (a retried batch), in that order."""
        query = sa.select(events).where(events.c.position.in_(positions))
        found = {row.position: from_row(row) for row in connection.execute(query).mappings()}
        return [found[position] for position in positions]

    def _retry_or_head(
        self,
        connection: Connection,
        stream_id: str,
        events_: Sequence[NewEvent],
        expected_version: int,
    ) -> list[int] | ChainHead:
        """Return the original positions of a retried batch, else the stream's head."""
        recorded, head = self._batch_ids_and_head(connection, stream_id, events_)
        original = resolve_retry(stream_id, events_, recorded)
        if original is not None:
            return original
        if head.version != expected_version:
            raise ConcurrencyError(
                f"stream {stream_id} is at version {head.version}, expected {expected_version}"
            )
        return head

    def _batch_ids_and_head(
        self, connection: Connection, stream_id: str, events_: Sequence[NewEvent]
    ) -> tuple[dict[str, tuple[str, int]], ChainHead]:
        """Find which batch ids are recorded and the stream's head (one round trip).

        Nothing is locked: a writer of the same stream that commits after this read makes
        this append's insert collide with a unique constraint, which surfaces as
        ConcurrencyError, so nothing stale is ever written.
        """
        parameters: dict[str, Any] = {
            "event_ids": [e.event_id for e in events_],
            "stream_id": stream_id,
        }
        query = BATCH_IDS_AND_HEAD
        if connection.dialect.name == "postgresql":
            query = BATCH_IDS_AND_HEAD_AND_TIMEOUT
            parameters["lock_timeout"] = f"{self._lock_timeout_ms}ms"
        batch_ids = {event.event_id for event in events_}
        recorded: dict[str, tuple[str, int]] = {}
        head = ChainHead()
        for row in connection.execute(query, parameters):
            if row.event_id in batch_ids:
                recorded[row.event_id] = (row.stream_id, row.position)
            if row.stream_id == stream_id and row.stream_version > head.version:
                head = ChainHead(row.stream_version, row.hash)
        return recorded, head

    def read_stream(self, stream_id: str, from_version: int = 1) -> Iterator[RecordedEvent]:
        query = sa.select(events).where(events.c.stream_id == stream_id)
        return self._paged(query, events.c.stream_version, from_version - 1)

    def read_all(self, after_position: int = 0) -> Iterator[RecordedEvent]:
        """Yield every event after ``after_position`` in the log's order (see the port).

        SQLite commits one writer at a time, so its order is position order. PostgreSQL
        reads in (transaction, position) order below the oldest transaction in progress,
        waiting up to the settle timeout for the events committed before the call.
        """
        if self._engine.dialect.name == "postgresql":
            return read_settled(
                self._engine, after_position, self._batch_size, self._settle_seconds
            )
        return self._paged(sa.select(events), events.c.position, after_position)

    def read_all_data(self, after_position: int = 0) -> Iterator[EventData]:
        """Yield what ``read_all`` yields as EventData; on SQLite, from the stored text."""
        if self._engine.dialect.name != "sqlite":
            yield from super().read_all_data(after_position)
            return
        # Position order, in keyset pages each read in a short connection, as _paged does.
        after, make = after_position, EventData._make
        while True:
            with translate_errors(self._engine.url), self._engine.connect() as connection:
                page = (after, self._batch_size)
                # The driver's own tuples: SQLAlchemy's rows cost a third of the read.
                rows = connection.exec_driver_sql(_SQLITE_DATA_PAGE, page).cursor.fetchall()
            batch = list(map(make, rows))
            yield from batch
            if len(batch) < self._batch_size:
                return
            after = batch[-1].position

    def head_position(self) -> int:
        return self._scalar(sa.select(sa.func.max(events.c.position))) or 0

    def last_position(self) -> int:
        if self._engine.dialect.name != "postgresql":
            return self.head_position()
        return self._scalar(LAST_IN_READ_ORDER) or 0

    def current_version(self, stream_id: str) -> int:
        with translate_errors(self._engine.url), read_connection(self._engine) as connection:
            found = _STREAM_VERSION.run(connection, {"stream_id": stream_id}).scalar()
        return int(found or 0)

    def stream_ids(self) -> list[str]:
        query = (
            sa.select(events.c.stream_id)
            .where(events.c.stream_version == 1)
            .order_by(events.c.position)
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            return list(connection.scalars(query))

    def import_recorded(self, records: Iterable[RecordedEvent]) -> int:
        appended = 0
        with self._writing() as connection:
            self._limit_lock_waits(connection)
            for chunk in plan_import(
                records,
                lambda ids: self._existing(connection, ids),
                lambda stream_id: self._head(connection, stream_id),
            ):
                self._insert(connection, chunk)
                appended += len(chunk)
        return appended

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        with (
            translate_errors(self._engine.url),
            write_connection(self._engine) as connection,
            connection.begin(),
        ):
            yield connection

    def _limit_lock_waits(self, connection: Connection) -> None:
        if connection.dialect.name != "postgresql":
            return  # SQLite: BEGIN IMMEDIATE already holds the database's write lock.
        # set_config(..., true) is SET LOCAL: the timeout ends with the transaction.
        connection.execute(
            sa.text("SELECT set_config('lock_timeout', :timeout, true)"),
            {"timeout": f"{self._lock_timeout_ms}ms"},
        )

    def _paged(
        self, query: sa.Select[Any], key: sa.ColumnElement[int], after: int
    ) -> Iterator[RecordedEvent]:
        # Keyset pagination: each batch is its own short read, so memory stays constant
        # and no transaction stays open while the caller works through a batch.
        while True:
            page = query.where(key > after).order_by(key).limit(self._batch_size)
            with translate_errors(self._engine.url), read_connection(self._engine) as connection:
                batch = [from_row(row) for row in connection.execute(page).mappings()]
            yield from batch
            if len(batch) < self._batch_size:
                return
            last = batch[-1]
            after = last.position if key is events.c.position else last.stream_version

    def _scalar(self, query: sa.Select[Any]) -> Any:
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            return connection.scalar(query)

    @staticmethod
    def _existing(connection: Connection, event_ids: list[str]) -> dict[str, Any]:
        query = sa.select(
            events.c.event_id, events.c.stream_id, events.c.stream_version, events.c.hash
        ).where(events.c.event_id.in_(event_ids))
        return {
            row.event_id: (row.stream_id, row.stream_version, row.hash)
            for row in connection.execute(query)
        }

    @staticmethod
    def _head(connection: Connection, stream_id: str) -> ChainHead:
        query = (
            sa.select(events.c.stream_version, events.c.hash)
            .where(events.c.stream_id == stream_id)
            .order_by(events.c.stream_version.desc())
            .limit(1)
        )
        row = connection.execute(query).first()
        return ChainHead() if row is None else ChainHead(row.stream_version, row.hash)

    @staticmethod
    def _insert(connection: Connection, records: Sequence[RecordedEvent]) -> list[int]:
        # Positions are matched back by event id: asking the driver to return rows in
        # parameter order makes SQLAlchemy insert one row per statement on SQLite.
        try:
            result = connection.execute(
                INSERT_RETURNING_POSITIONS, [to_row(record) for record in records]
            )
        except exc.IntegrityError:
            # A writer of the same stream (or the same event ids) committed first.
            raise ConcurrencyError("another writer appended to the stream first") from None
        positions = {row.event_id: row.position for row in result}
        return [positions[record.event_id] for record in records]

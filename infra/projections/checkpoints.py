"""What every persisted projection shares: its checkpoint, its batches, its transactions.

A projection folds the events after its checkpoint in batches; each batch's rows and the
moved checkpoint commit in one transaction, so a crash leaves them in step. Updaters are
serialised (SQLite's write lock; on PostgreSQL an advisory lock per projection), and a
batch whose starting checkpoint has moved meanwhile is dropped: the other updater
already folded it. ``CheckpointedProjection`` runs that loop; a projection says only how
to start a batch, add an event to it, and write it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from diceledger.infra.projections.schema import projection_checkpoints
from diceledger.infra.store.database import translate_errors, write_connection
from diceledger.infra.store.port import EventStore

# Events folded per transaction. Each flush upserts every counter its batch touched, and
# a session's counters are written again in every batch it spans: 20,000 rather than
# 5,000 cut a 100,000-event rebuild's CPU by 5 to 12% (docs/performance.md, W4), the
# batch's sums staying bounded (memory flat).
BATCH_SIZE = 20_000
Progress = Callable[[int], None]  # called with the number of events just folded
Batch = TypeVar("Batch")


class Positioned(Protocol):
    """What a projection reads from the store: anything that carries its log position."""

    @property
    def position(self) -> int: ...


Item = TypeVar("Item", bound=Positioned)


class Overtaken(Exception):
    """Another updater moved the checkpoint first; this one's batch is not needed."""


@dataclass(frozen=True, slots=True)
class Status:
    """A projection's checkpoint against the store's head."""

    name: str
    checkpoint: int
    head: int  # the highest position recorded
    last: int  # the position of the event the store's read_all yields last

    @property
    def behind(self) -> int:
        """Return how many positions the projection lags (an upper bound: gaps count).

        Up to date means the checkpoint is the log's last event in read order, which on
        PostgreSQL need not be the highest position.
        """
        if self.checkpoint == self.last:
            return 0
        return max(self.head - self.checkpoint, 1)


def read_checkpoint(connection: Connection, name: str) -> int:
    """Return the last position the projection ``name`` includes (0 before its first)."""
    query = sa.select(projection_checkpoints.c.position).where(
        projection_checkpoints.c.name == name
    )
    return connection.scalar(query) or 0


def checkpoint_of(engine: Engine, name: str) -> int:
    """Read a projection's checkpoint in a connection of its own."""
    with translate_errors(engine.url), engine.connect() as connection:
        return read_checkpoint(connection, name)


def set_checkpoint(connection: Connection, name: str, position: int) -> None:
    """Move the projection's checkpoint to ``position``."""
    insert = insert_for(connection)(projection_checkpoints)
    statement = insert.values(name=name, position=position).on_conflict_do_update(
        index_elements=["name"], set_={"position": position}
    )
    connection.execute(statement)


def advance(connection: Connection, name: str, expected: int, position: int) -> None:
    """Move the checkpoint from ``expected`` to ``position``, or raise Overtaken."""
    if read_checkpoint(connection, name) != expected:
        raise Overtaken
    set_checkpoint(connection, name, position)


@contextmanager
def writing(engine: Engine, lock_key: int) -> Iterator[Connection]:
    """Open one write transaction, serialised against other updaters of the projection."""
    with (
        translate_errors(engine.url),
        write_connection(engine) as connection,
        connection.begin(),
    ):
        if connection.dialect.name == "postgresql":
            # Serialise updaters: the second waits here, then sees the moved checkpoint.
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key})
        yield connection


def insert_for(connection: Connection) -> Callable[[sa.Table], Any]:
    """Return the dialect's INSERT, which both spell ``ON CONFLICT DO UPDATE/NOTHING``."""
    # Imported here: the engine loads only its own dialect, and PostgreSQL's would cost
    # every SQLite command a large share of its start-up.
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


class CheckpointedProjection(ABC, Generic[Batch, Item]):
    """Fold the store's events into tables, batch by batch, from a checkpoint."""

    name: ClassVar[str]  # the checkpoint's row in projection_checkpoints
    lock_key: ClassVar[int]  # the PostgreSQL advisory lock that serialises updaters
    tables: ClassVar[tuple[sa.Table, ...]]  # emptied by a rebuild, in this order

    def __init__(self, engine: Engine, store: EventStore, batch_size: int = BATCH_SIZE) -> None:
        self._engine = engine
        self._store = store
        self._batch_size = batch_size

    @property
    def engine(self) -> Engine:
        """Return the engine of the projection's database (for its queries)."""
        return self._engine

    def checkpoint(self) -> int:
        """Return the last position the tables include (0 before the first update)."""
        return checkpoint_of(self._engine, self.name)

    def status(self) -> Status:
        """Return the checkpoint and the store's head."""
        return Status(
            self.name, self.checkpoint(), self._store.head_position(), self._store.last_position()
        )

    def catch_up(self, progress: Progress | None = None) -> int:
        """Fold the events after the checkpoint into the tables; return how many."""
        start = self.checkpoint()
        add = self._adder()
        batch, folded, last, count = self._new_batch(), 0, start, 0
        try:
            for record in self._read(start):
                add(record, batch)
                last, count = record.position, count + 1
                if count == self._batch_size:
                    self._flush(batch, start, last)
                    start, folded, batch, count = last, folded + count, self._new_batch(), 0
                    if progress:
                        progress(self._batch_size)
            if count:
                self._flush(batch, start, last)
                folded += count
                if progress:
                    progress(count)
        except Overtaken:
            pass
        return folded

    def rebuild(self, progress: Progress | None = None) -> int:
        """Empty the tables and fold every event from position 0; return how many."""
        with writing(self._engine, self.lock_key) as connection:
            for table in self.tables:
                connection.execute(table.delete())
            set_checkpoint(connection, self.name, 0)
        return self.catch_up(progress)

    def _flush(self, batch: Batch, expected: int, position: int) -> None:
        with writing(self._engine, self.lock_key) as connection:
            advance(connection, self.name, expected, position)
            self._write(connection, batch)

    @abstractmethod
    def _read(self, after_position: int) -> Iterator[Item]:
        """Return the store's events after a position, in the log's order, as the adder
        takes them."""

    @abstractmethod
    def _adder(self) -> Callable[[Item, Batch], None]:
        """Return what adds one event to a batch, for one catch-up (it may keep state)."""

    @abstractmethod
    def _new_batch(self) -> Batch:
        """Return an empty batch."""

    @abstractmethod
    def _write(self, connection: Connection, batch: Batch) -> None:
        """Write a batch's rows (the checkpoint is moved in the same transaction)."""

"""What every persisted projection shares: its checkpoint row and its write transactions.

A projection folds the events after its checkpoint in batches; each batch's rows and the
moved checkpoint commit in one transaction, so a crash leaves them in step. Updaters are
serialised (SQLite's write lock; on PostgreSQL an advisory lock per projection), and a
batch whose starting checkpoint has moved meanwhile is dropped: the other updater
already folded it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from infra.db import translate_errors, write_connection
from infra.projections.schema import projection_checkpoints

Progress = Callable[[int], None]  # called with the number of events just folded


class Overtaken(Exception):
    """Another updater moved the checkpoint first; this one's batch is not needed."""


@dataclass(frozen=True, slots=True)
class Status:
    """A projection's checkpoint against the store's head."""

    name: str
    checkpoint: int
    head: int

    @property
    def behind(self) -> int:
        """Return how many positions the projection lags (an upper bound: gaps count)."""
        return max(self.head - self.checkpoint, 0)


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
    return postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert

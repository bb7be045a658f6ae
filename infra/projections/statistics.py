"""The persisted statistics projection: caught up from its checkpoint, or rebuilt from 0.

Each batch of events becomes one transaction that adds the batch's counter changes to
``stat_counters``, records member roles, and moves the checkpoint; a crash leaves the
rows and the checkpoint in step. Two updaters racing are safe: a batch whose starting
checkpoint has moved meanwhile is dropped, since the other updater already counted it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from domain.projections.logged import Logged
from domain.projections.statistics import Key, StatisticsFold, Tally
from infra.db import translate_errors, write_connection
from infra.projections.decoding import logged
from infra.projections.schema import projection_checkpoints, stat_counters, stat_members
from infra.store.port import EventStore

NAME = "statistics"
BATCH_SIZE = 5000
LOCK_KEY = 0x6469_6365_7072_6F6A  # "diceproj": serialises projection updaters
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


class StatisticsProjection:
    """Keep the statistics counters in step with the event store."""

    def __init__(self, engine: Engine, store: EventStore, batch_size: int = BATCH_SIZE) -> None:
        self._engine = engine
        self._store = store
        self._batch_size = batch_size

    @property
    def engine(self) -> Engine:
        """Return the engine of the projection's database (for its queries)."""
        return self._engine

    def checkpoint(self) -> int:
        """Return the last position the counters include (0 before the first update)."""
        query = sa.select(projection_checkpoints.c.position).where(
            projection_checkpoints.c.name == NAME
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            return connection.scalar(query) or 0

    def status(self) -> Status:
        """Return the checkpoint and the store's head."""
        return Status(NAME, self.checkpoint(), self._store.head_position())

    def catch_up(self, progress: Progress | None = None) -> int:
        """Fold the events after the checkpoint into the counters; return how many."""
        start = self.checkpoint()
        fold = StatisticsFold(load_history=self._history)
        tally, folded, last, count = Tally(), 0, start, 0
        try:
            for record in self._store.read_all(start):
                fold.apply(logged(record), tally)
                last, count = record.position, count + 1
                if count == self._batch_size:
                    self._flush(tally, start, last)
                    start, folded, tally, count = last, folded + count, Tally(), 0
                    if progress:
                        progress(self._batch_size)
            if count:
                self._flush(tally, start, last)
                folded += count
                if progress:
                    progress(count)
        except Overtaken:
            pass
        return folded

    def rebuild(self, progress: Progress | None = None) -> int:
        """Empty the counters and fold every event from position 0; return how many."""
        with self._writing() as connection:
            connection.execute(stat_counters.delete())
            connection.execute(stat_members.delete())
            self._set_checkpoint(connection, 0)
        return self.catch_up(progress)

    def _history(self, stream_id: str, up_to_version: int) -> Iterator[Logged]:
        for record in self._store.read_stream(stream_id):
            if record.stream_version > up_to_version:
                return
            yield logged(record)

    def _flush(self, tally: Tally, expected: int, position: int) -> None:
        with self._writing() as connection:
            current = connection.scalar(
                sa.select(projection_checkpoints.c.position).where(
                    projection_checkpoints.c.name == NAME
                )
            )
            if (current or 0) != expected:
                raise Overtaken
            self._add_counters(connection, tally.nonzero())
            self._set_roles(connection, tally.members)
            self._set_checkpoint(connection, position)

    def _add_counters(self, connection: Connection, changes: dict[Key, int]) -> None:
        if not changes:
            return
        rows = [
            {"session_id": s, "player": p, "scope": scope, "metric": m, "value": amount}
            for (s, p, scope, m), amount in changes.items()
        ]
        insert = _insert_for(connection)(stat_counters)
        statement = insert.on_conflict_do_update(
            index_elements=["session_id", "player", "scope", "metric"],
            set_={"value": stat_counters.c.value + insert.excluded.value},
        )
        connection.execute(statement, rows)

    @staticmethod
    def _set_roles(connection: Connection, roles: dict[tuple[str, str], str]) -> None:
        if not roles:
            return
        rows = [{"session_id": s, "name": n, "role": r} for (s, n), r in roles.items()]
        insert = _insert_for(connection)(stat_members)
        statement = insert.on_conflict_do_update(
            index_elements=["session_id", "name"], set_={"role": insert.excluded.role}
        )
        connection.execute(statement, rows)

    @staticmethod
    def _set_checkpoint(connection: Connection, position: int) -> None:
        insert = _insert_for(connection)(projection_checkpoints)
        statement = insert.values(name=NAME, position=position).on_conflict_do_update(
            index_elements=["name"], set_={"position": position}
        )
        connection.execute(statement)

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        with (
            translate_errors(self._engine.url),
            write_connection(self._engine) as connection,
            connection.begin(),
        ):
            if connection.dialect.name == "postgresql":
                # Serialise updaters: the second waits here, then sees the moved checkpoint.
                connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
            yield connection


def _insert_for(connection: Connection) -> Callable[[sa.Table], Any]:
    # Both dialects spell an upsert the same way: INSERT ... ON CONFLICT DO UPDATE.
    return postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert

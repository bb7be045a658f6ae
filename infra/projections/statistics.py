"""The persisted statistics projection: caught up from its checkpoint, or rebuilt from 0.

Each batch of events becomes one transaction that adds the batch's counter changes to
``stat_counters``, records member roles, and moves the checkpoint (the rules every
projection follows are in infra/projections/checkpoints.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy.engine import Connection, Engine

from domain.projections.logged import Logged
from domain.projections.statistics import Key, StatisticsFold, Tally
from infra.projections.checkpoints import (
    Overtaken,
    Progress,
    Status,
    advance,
    checkpoint_of,
    insert_for,
    set_checkpoint,
    writing,
)
from infra.projections.decoding import logged
from infra.projections.schema import stat_counters, stat_members
from infra.store.port import EventStore

NAME = "statistics"
BATCH_SIZE = 5000
LOCK_KEY = 0x6469_6365_7072_6F6A  # "diceproj": serialises statistics updaters


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
        return checkpoint_of(self._engine, NAME)

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
        with writing(self._engine, LOCK_KEY) as connection:
            connection.execute(stat_counters.delete())
            connection.execute(stat_members.delete())
            set_checkpoint(connection, NAME, 0)
        return self.catch_up(progress)

    def _history(self, stream_id: str, up_to_version: int) -> Iterator[Logged]:
        for record in self._store.read_stream(stream_id):
            if record.stream_version > up_to_version:
                return
            yield logged(record)

    def _flush(self, tally: Tally, expected: int, position: int) -> None:
        with writing(self._engine, LOCK_KEY) as connection:
            advance(connection, NAME, expected, position)
            self._add_counters(connection, tally.nonzero())
            self._set_roles(connection, tally.members)

    def _add_counters(self, connection: Connection, changes: dict[Key, int]) -> None:
        if not changes:
            return
        rows = [
            {"session_id": s, "player": p, "scope": scope, "metric": m, "value": amount}
            for (s, p, scope, m), amount in changes.items()
        ]
        insert = insert_for(connection)(stat_counters)
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
        insert = insert_for(connection)(stat_members)
        statement = insert.on_conflict_do_update(
            index_elements=["session_id", "name"], set_={"role": insert.excluded.role}
        )
        connection.execute(statement, rows)

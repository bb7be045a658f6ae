"""The persisted statistics projection: caught up from its checkpoint, or rebuilt from 0.

Each batch of events becomes one transaction that adds the batch's counter changes to
``stat_counters``, records member roles, and moves the checkpoint (the rules every
projection follows are in infra/projections/checkpoints.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sqlalchemy.engine import Connection

from diceledger.domain.projections.statistics import Key
from diceledger.infra.projections.checkpoints import CheckpointedProjection, insert_for
from diceledger.infra.projections.lean_statistics import Changes, LeanStatisticsFold, stream_history
from diceledger.infra.projections.schema import stat_counters, stat_members
from diceledger.infra.store.port import EventData

_SQLITE_ADD_COUNTERS = (
    "INSERT INTO stat_counters (session_id, player, scope, metric, value)"
    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, player, scope, metric)"
    " DO UPDATE SET value = stat_counters.value + excluded.value"
)


class StatisticsProjection(CheckpointedProjection[Changes, EventData]):
    """Keep the statistics counters in step with the event store."""

    name = "statistics"
    lock_key = 0x6469_6365_7072_6F6A  # "diceproj"
    tables = (stat_counters, stat_members)

    def _read(self, after_position: int) -> Iterator[EventData]:
        # The fold reads each event's session, version and data: not its envelope.
        return self._store.read_all_data(after_position)

    def _adder(self) -> Callable[[EventData, Changes], None]:
        # One fold per catch-up: it keeps the state of the sessions it is working on.
        return LeanStatisticsFold(load_history=stream_history(self._store)).apply

    def _new_batch(self) -> Changes:
        return Changes()

    def _write(self, connection: Connection, tally: Changes) -> None:
        self._add_counters(connection, tally.nonzero())
        self._set_roles(connection, tally.members)

    @staticmethod
    def _add_counters(connection: Connection, changes: dict[Key, int]) -> None:
        if not changes:
            return
        if connection.dialect.name == "sqlite":
            # The same upsert as below, as plain SQL: SQLAlchemy's per-row parameter
            # processing cost more than SQLite's work on a batch of counters.
            connection.exec_driver_sql(
                _SQLITE_ADD_COUNTERS, [(*key, amount) for key, amount in changes.items()]
            )
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

"""Build the persisted projections for the application's database.

Each builder imports its projection only when called: `session list` should not pay
for the statistics fold's imports (the odds engine among them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from sqlalchemy.engine import Engine

from diceledger.domain.errors import StoreUnavailableError
from diceledger.infra.projections.checkpoints import Progress, Status
from diceledger.infra.store.port import EventStore

if TYPE_CHECKING:
    from diceledger.infra.projections.directory import SessionDirectory
    from diceledger.infra.projections.statistics import StatisticsProjection


class PersistedProjection(Protocol):
    """What the application asks of every checkpointed projection."""

    def status(self) -> Status: ...

    def catch_up(self, progress: Progress | None = None) -> int: ...

    def rebuild(self, progress: Progress | None = None) -> int: ...


def statistics_projection(store: EventStore, engine: Engine | None) -> StatisticsProjection:
    """Return the statistics projection on the same database as ``store``."""
    from diceledger.infra.projections.statistics import StatisticsProjection

    return StatisticsProjection(_required(engine, "the statistics projection"), store)


def session_directory(store: EventStore, engine: Engine | None) -> SessionDirectory:
    """Return the session directory on the same database as ``store``."""
    from diceledger.infra.projections.directory import SessionDirectory

    return SessionDirectory(_required(engine, "the session directory"), store)


def _required(engine: Engine | None, what: str) -> Engine:
    if engine is None:
        raise StoreUnavailableError(f"{what} needs a database URL")
    return engine

"""Build the persisted projections for the services' database.

Each builder imports its projection only when called: `session list` should not pay
for the statistics fold's imports (the odds engine among them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from diceledger.domain.errors import StoreUnavailableError
from diceledger.infra.db import make_engine

if TYPE_CHECKING:
    from diceledger.infra.projections.directory import SessionDirectory
    from diceledger.infra.projections.statistics import StatisticsProjection


def statistics_projection(services: Any) -> StatisticsProjection:
    """Return the statistics projection on the same database as the services' store."""
    from diceledger.infra.projections.statistics import StatisticsProjection

    return StatisticsProjection(_engine(services, "the statistics projection"), services.store)


def session_directory(services: Any) -> SessionDirectory:
    """Return the session directory on the same database as the services' store."""
    from diceledger.infra.projections.directory import SessionDirectory

    return SessionDirectory(_engine(services, "the session directory"), services.store)


def _engine(services: Any, what: str) -> Any:
    if not services.url.startswith(("sqlite", "postgresql")):
        raise StoreUnavailableError(f"{what} needs a database URL")
    return make_engine(services.url)

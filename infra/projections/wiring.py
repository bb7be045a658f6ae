"""Build the persisted projections for the services' database."""

from __future__ import annotations

from typing import Any

from domain.errors import StoreUnavailableError
from infra.db import make_engine
from infra.projections.directory import SessionDirectory
from infra.projections.statistics import StatisticsProjection


def statistics_projection(services: Any) -> StatisticsProjection:
    """Return the statistics projection on the same database as the services' store."""
    return StatisticsProjection(_engine(services, "the statistics projection"), services.store)


def session_directory(services: Any) -> SessionDirectory:
    """Return the session directory on the same database as the services' store."""
    return SessionDirectory(_engine(services, "the session directory"), services.store)


def _engine(services: Any, what: str) -> Any:
    if not services.url.startswith(("sqlite", "postgresql")):
        raise StoreUnavailableError(f"{what} needs a database URL")
    return make_engine(services.url)

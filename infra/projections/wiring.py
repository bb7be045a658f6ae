"""Build the statistics projection for the services' database."""

from __future__ import annotations

from typing import Any

from domain.errors import StoreUnavailableError
from infra.db import make_engine
from infra.projections.statistics import StatisticsProjection


def statistics_projection(services: Any) -> StatisticsProjection:
    """Return the statistics projection on the same database as the services' store."""
    if not services.url.startswith(("sqlite", "postgresql")):
        raise StoreUnavailableError("the statistics projection needs a database URL")
    return StatisticsProjection(make_engine(services.url), services.store)

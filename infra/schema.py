"""Every table diceledger owns, on one metadata: what the migrations are checked against."""

from __future__ import annotations

import infra.projections.schema  # noqa: F401 - registers the projection tables
from infra.store.schema import metadata

__all__ = ["metadata"]

"""Every table diceledger owns, on one metadata: what the migrations are checked against."""

from __future__ import annotations

import diceledger.infra.access.schema  # registers the access tables
import diceledger.infra.campaigns.schema  # registers the campaign tables
import diceledger.infra.discord.schema  # registers the Discord bindings
import diceledger.infra.ledger.schema  # registers the checkpoint ledger's tables
import diceledger.infra.projections.schema  # registers the projection tables
import diceledger.infra.snapshots.schema  # registers the session snapshots
import diceledger.infra.vault.schema  # noqa: F401 - registers the seed vault
from diceledger.infra.store.schema import metadata

__all__ = ["metadata"]

"""The table of the seed vault: sealed seeds by session and commitment (migrations 0002, 0007)."""

from __future__ import annotations

import sqlalchemy as sa

from diceledger.infra.store.schema import metadata
from diceledger.infra.store.sealing import STREAM_ID_LENGTH

seed_vault = sa.Table(
    "seed_vault",
    metadata,
    sa.Column("stream_id", sa.String(STREAM_ID_LENGTH), primary_key=True),
    sa.Column("commitment", sa.String(64), primary_key=True),
    # SeedCipher's sealed form: the seed itself is never stored (migration 0007).
    sa.Column("sealed_seed", sa.LargeBinary(), nullable=False),
)

"""The campaign tables: append-only, like the event log (migration 0015's triggers)."""

from __future__ import annotations

import sqlalchemy as sa

from diceledger.infra.store.schema import metadata
from diceledger.infra.store.sealing import STREAM_ID_LENGTH

campaigns = sa.Table(
    "campaigns",
    metadata,
    sa.Column("campaign_id", sa.String(STREAM_ID_LENGTH), primary_key=True),
    sa.Column("title", sa.Text(), nullable=False),
    sa.Column("started_by", sa.Text(), nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
)

# One row per session in a campaign; the primary key keeps a session in one campaign.
campaign_sessions = sa.Table(
    "campaign_sessions",
    metadata,
    sa.Column("session_id", sa.String(STREAM_ID_LENGTH), primary_key=True),
    sa.Column("campaign_id", sa.String(STREAM_ID_LENGTH), nullable=False, index=True),
    sa.Column("added_by", sa.Text(), nullable=False),
    sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
)

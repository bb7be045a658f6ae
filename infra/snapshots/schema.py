"""The table of persisted session snapshots (migration 0012): a cache, never the record."""

from __future__ import annotations

import sqlalchemy as sa

from diceledger.infra.store.schema import metadata
from diceledger.infra.store.sealing import STREAM_ID_LENGTH

# One row per session, replaced as the session grows. ``stream_version`` and ``event_hash``
# name the log event the state was folded up to; a reader uses the row only while the log
# still holds that event with that hash (docs/storage.md, "Session snapshots").
session_snapshots = sa.Table(
    "session_snapshots",
    metadata,
    sa.Column("stream_id", sa.String(STREAM_ID_LENGTH), primary_key=True),
    sa.Column("fold_version", sa.Integer(), nullable=False),
    sa.Column("stream_version", sa.Integer(), nullable=False),
    sa.Column("event_hash", sa.String(64), nullable=False),
    sa.Column("state", sa.Text(), nullable=False),
    sa.Column("written_at", sa.DateTime(timezone=True), nullable=False),
)

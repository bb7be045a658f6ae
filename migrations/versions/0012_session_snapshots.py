"""Keep each session's folded state, so a command need not replay a long session.

Revision ID: 0012_session_snapshots
Revises: 0011_parallel_writers
Create Date: 2026-12-04

One row per session (``infra.snapshots.store``): the state's text, the fold version that wrote
it, and the stream version and event hash it was folded up to. The table is a cache of
the log: readers use a row only while the log holds that event with that hash, and it may
be emptied at any time (the next commands write it again). No triggers: rows are replaced
as sessions grow.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_session_snapshots"
down_revision = "0011_parallel_writers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "session_snapshots",
        sa.Column("stream_id", sa.String(200), primary_key=True),
        sa.Column("fold_version", sa.Integer(), nullable=False),
        sa.Column("stream_version", sa.Integer(), nullable=False),
        sa.Column("event_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("written_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("session_snapshots")

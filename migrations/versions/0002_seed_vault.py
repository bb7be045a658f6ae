"""Create the seed vault, kept apart from the event log.

Revision ID: 0002_seed_vault
Revises: 0001_events
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_seed_vault"
down_revision = "0001_events"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seed_vault",
        sa.Column("stream_id", sa.String(200), primary_key=True),
        sa.Column("commitment", sa.String(64), primary_key=True),
        sa.Column("seed", sa.LargeBinary(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("seed_vault")

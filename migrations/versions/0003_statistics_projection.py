"""Create the statistics projection's tables and the projection checkpoints.

Revision ID: 0003_statistics_projection
Revises: 0002_seed_vault
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_statistics_projection"
down_revision = "0002_seed_vault"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "projection_checkpoints",
        sa.Column("name", sa.String(50), primary_key=True),
        sa.Column("position", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "stat_counters",
        sa.Column("session_id", sa.String(200), primary_key=True),
        sa.Column("player", sa.String(200), primary_key=True),
        sa.Column("scope", sa.String(10), primary_key=True),
        sa.Column("metric", sa.String(64), primary_key=True),
        sa.Column("value", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "stat_members",
        sa.Column("session_id", sa.String(200), primary_key=True),
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("role", sa.String(20), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("stat_members")
    op.drop_table("stat_counters")
    op.drop_table("projection_checkpoints")

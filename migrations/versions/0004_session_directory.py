"""Create the session directory projection, which `session list` reads.

Revision ID: 0004_session_directory
Revises: 0003_statistics_projection
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_session_directory"
down_revision = "0003_statistics_projection"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "session_directory",
        sa.Column("session_id", sa.String(200), primary_key=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("gm", sa.Text(), nullable=False),
        sa.Column("rolls", sa.BigInteger(), nullable=False),
        sa.Column("ended", sa.Boolean(), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False, unique=True),
    )
    op.create_table(
        "session_directory_members",
        sa.Column("session_id", sa.String(200), primary_key=True),
        sa.Column("name", sa.Text(), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("session_directory_members")
    op.drop_table("session_directory")

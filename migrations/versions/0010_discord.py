"""Create the Discord bindings: a channel's session, and a Discord user's member.

Revision ID: 0010_discord
Revises: 0008_access
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_discord"
down_revision = "0008_access"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "discord_channels",
        sa.Column("channel_id", sa.String(32), primary_key=True),
        sa.Column("session_id", sa.String(200), nullable=False, index=True),
        sa.Column("bound_by", sa.String(32), nullable=False),
        sa.Column("bound_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "discord_members",
        sa.Column("session_id", sa.String(200), primary_key=True),
        sa.Column("user_id", sa.String(32), primary_key=True),
        sa.Column("member", sa.Text(), nullable=False),
        sa.Column("linked_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("session_id", "member", name="uq_discord_members_member"),
    )


def downgrade() -> None:
    op.drop_table("discord_members")
    op.drop_table("discord_channels")

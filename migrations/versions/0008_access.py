"""Create the server's access tables: member tokens, invites, idempotent requests.

Revision ID: 0008_access
Revises: 0007_sealed_seeds
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_access"
down_revision = "0007_sealed_seeds"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "member_tokens",
        sa.Column("token_id", sa.String(36), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("session_id", sa.String(200), nullable=False, index=True),
        sa.Column("member", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "invites",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("session_id", sa.String(200), nullable=False, index=True),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("redeemed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("redeemed_by", sa.Text(), nullable=True),
    )
    op.create_table(
        "idempotent_requests",
        sa.Column("scope", sa.String(100), primary_key=True),
        sa.Column("idempotency_key", sa.String(200), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("body", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("idempotent_requests")
    op.drop_table("invites")
    op.drop_table("member_tokens")

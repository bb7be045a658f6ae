"""Tell a device a member signed out apart from a token a GM revoked.

Revision ID: 0014_signed_out_devices
Revises: 0013_compact_ranges
Create Date: 2026-12-01

``member_tokens.signed_out_at``: when the member signed the device out, or a newer sign-in
pushed it past the member's most live devices. A revocation (``revoked_at``) shuts the
member out for good; a sign-out ends only that one token.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_signed_out_devices"
down_revision = "0013_compact_ranges"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "member_tokens",
        sa.Column("signed_out_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.execute("ALTER TABLE member_tokens DROP COLUMN signed_out_at")

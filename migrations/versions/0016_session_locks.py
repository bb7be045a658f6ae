"""Create session_locks: the rows PostgreSQL writers lock to take a session's lock.

Revision ID: 0016_session_locks
Revises: 0015_campaigns
Create Date: 2026-12-03

Until now a session's ledger lock was a PostgreSQL advisory lock, which any role allowed
to connect may take and hold. A row lock (SELECT ... FOR UPDATE) needs UPDATE on the
table, which docs/storage.md grants to the app role alone. Rows are made on first use
(``infra.store.session_lock``), so existing sessions need none here. The table is created
on SQLite too, where it stays empty: the schema is one on both backends.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_session_locks"
down_revision = "0015_campaigns"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "session_locks",
        sa.Column("stream_id", sa.String(200), primary_key=True),
        sa.Column("purpose", sa.String(16), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("session_locks")

"""Record each event's writing transaction, so appends need no global lock on PostgreSQL.

Revision ID: 0011_parallel_writers
Revises: 0010_discord
Create Date: 2026-12-03

PostgreSQL: ``transaction_id xid8`` filled by ``pg_current_xact_id()``, and an index on
``(transaction_id, position)``, the order in which ``read_all`` reads (docs/storage.md,
"Position order under concurrent writers"). Rows written before this revision read as
transaction 0: they were appended one at a time under the old append lock, so their
position order is their commit order and they all come before anything written later.
Adding the column with a constant default is a catalogue change (no table rewrite); the
default that names the writing transaction is set afterwards and applies to new rows only.

SQLite: the same column, always 0 (one writer at a time commits in position order), and
the index with ``WHERE 0``, so it stays empty.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_parallel_writers"
down_revision = "0010_discord"
branch_labels = None
depends_on = None

INDEX = "ix_events_transaction_position"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE events ADD COLUMN transaction_id xid8 NOT NULL DEFAULT '0'")
        op.execute(
            "ALTER TABLE events ALTER COLUMN transaction_id SET DEFAULT pg_current_xact_id()"
        )
        op.create_index(INDEX, "events", ["transaction_id", "position"])
        return
    op.add_column(
        "events", sa.Column("transaction_id", sa.Integer(), nullable=False, server_default="0")
    )
    op.create_index(INDEX, "events", ["transaction_id", "position"], sqlite_where=sa.false())


def downgrade() -> None:
    op.drop_index(INDEX, "events")
    # SQLite (3.35 and later) drops an unindexed column in place, keeping the triggers.
    op.drop_column("events", "transaction_id")

"""Keep each signed checkpoint's compact range with it, so signing reads O(1) rows.

Revision ID: 0013_compact_ranges
Revises: 0012_session_snapshots
Create Date: 2026-12-01

``signed_checkpoints.edge``: the hashes of the tree's right-edge complete subtrees, which
are all the next tree needs to grow (``infra.ledger.checkpoint_ledger``). Rows signed
before keep NULL; the ledger reads their nodes from ``merkle_nodes`` instead, once per
session, and the next checkpoint carries its range. Adding a column leaves the append-only
triggers as they are.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_compact_ranges"
down_revision = "0012_session_snapshots"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("signed_checkpoints", sa.Column("edge", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    # In place on both backends (SQLite 3.35+): a rebuilt table would lose its triggers.
    op.execute("ALTER TABLE signed_checkpoints DROP COLUMN edge")

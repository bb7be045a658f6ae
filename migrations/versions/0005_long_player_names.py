"""Let the statistics tables hold every player name the domain accepts (up to 500 chars).

They were created with VARCHAR(200), which PostgreSQL enforces: a longer name made
`stats` fail. SQLite ignores the length, so only the declared type changes there.

Revision ID: 0005_long_player_names
Revises: 0004_session_directory
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_long_player_names"
down_revision = "0004_session_directory"
branch_labels = None
depends_on = None

COLUMNS = (("stat_counters", "player"), ("stat_members", "name"))


def upgrade() -> None:
    for table, column in COLUMNS:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, type_=sa.Text(), existing_type=sa.String(200))


def downgrade() -> None:
    for table, column in COLUMNS:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, type_=sa.String(200), existing_type=sa.Text())

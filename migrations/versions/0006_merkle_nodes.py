"""Add the checkpoint ledger: each session's Merkle subtrees and its signed checkpoints.

Both tables only grow, so, like the events table, triggers refuse UPDATE and DELETE.

Revision ID: 0006_merkle_nodes
Revises: 0005_long_player_names
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_merkle_nodes"
down_revision = "0005_long_player_names"
branch_labels = None
depends_on = None

TABLES = ("merkle_nodes", "signed_checkpoints")
REFUSAL = "the checkpoint ledger is append-only"


def _sqlite_triggers(table: str) -> list[str]:
    return [
        f"""
        CREATE TRIGGER {table}_reject_{verb.lower()} BEFORE {verb} ON {table}
        BEGIN
            SELECT RAISE(ABORT, '{REFUSAL}: {verb} is not allowed');
        END
        """
        for verb in ("UPDATE", "DELETE")
    ]


POSTGRES_FUNCTION = f"""
    CREATE FUNCTION ledger_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '{REFUSAL}: % is not allowed', TG_OP
            USING ERRCODE = 'restrict_violation';
    END
    $$
"""


def _postgres_triggers(table: str) -> list[str]:
    return [
        f"""
        CREATE TRIGGER {table}_reject_change BEFORE UPDATE OR DELETE ON {table}
        FOR EACH ROW EXECUTE FUNCTION ledger_reject_change()
        """,
        f"""
        CREATE TRIGGER {table}_reject_truncate BEFORE TRUNCATE ON {table}
        FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change()
        """,
    ]


def upgrade() -> None:
    op.create_table(
        "merkle_nodes",
        sa.Column("stream_id", sa.String(200), primary_key=True),
        sa.Column("level", sa.SmallInteger(), primary_key=True, autoincrement=False),
        sa.Column("node_index", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("hash", sa.LargeBinary(32), nullable=False),
    )
    op.create_table(
        "signed_checkpoints",
        sa.Column("stream_id", sa.String(200), primary_key=True),
        sa.Column("tree_size", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("root", sa.LargeBinary(32), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("key_id", sa.String(8), nullable=False),
        sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
    )
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        statements = [s for table in TABLES for s in _sqlite_triggers(table)]
    elif dialect == "postgresql":
        statements = [
            POSTGRES_FUNCTION,
            *(s for table in TABLES for s in _postgres_triggers(table)),
        ]
    else:
        statements = []
    for statement in statements:
        op.execute(statement)


def downgrade() -> None:
    # Dropping a table drops its triggers; the function outlives them on PostgreSQL.
    for table in reversed(TABLES):
        op.drop_table(table)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION ledger_reject_change()")

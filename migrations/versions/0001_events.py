"""Create the append-only events table.

Revision ID: 0001_events
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_events"
down_revision = None
branch_labels = None
depends_on = None

REFUSAL = "events are append-only"

SQLITE_TRIGGERS = [
    f"""
    CREATE TRIGGER events_reject_{verb.lower()} BEFORE {verb} ON events
    BEGIN
        SELECT RAISE(ABORT, '{REFUSAL}: {verb} is not allowed');
    END
    """
    for verb in ("UPDATE", "DELETE")
]

POSTGRES_TRIGGERS = [
    f"""
    CREATE FUNCTION events_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '{REFUSAL}: % is not allowed', TG_OP
            USING ERRCODE = 'restrict_violation';
    END
    $$
    """,
    """
    CREATE TRIGGER events_reject_change BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_reject_change()
    """,
    """
    CREATE TRIGGER events_reject_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_reject_change()
    """,
]


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column(
            "position",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            sa.Identity(),
            primary_key=True,
        ),
        sa.Column("event_id", sa.String(36), nullable=False),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("stream_version", sa.Integer(), nullable=False),
        sa.Column("event_type", sa.String(100), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("stream_id", "stream_version", name="uq_events_stream_version"),
        sa.UniqueConstraint("event_id", name="uq_events_event_id"),
        sqlite_autoincrement=True,
    )
    dialect = op.get_bind().dialect.name
    statements = {"sqlite": SQLITE_TRIGGERS, "postgresql": POSTGRES_TRIGGERS}.get(dialect, [])
    for statement in statements:
        op.execute(statement)


def downgrade() -> None:
    # Dropping the table drops its triggers; the function outlives it on PostgreSQL.
    op.drop_table("events")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION events_reject_change()")

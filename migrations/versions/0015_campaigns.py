"""Create the campaign tables: campaigns, and which session belongs to which.

Revision ID: 0015_campaigns
Revises: 0014_signed_out_devices
Create Date: 2026-12-01

Both tables only grow, as the event log does: a campaign keeps its title, and a session
once in a campaign stays there. The database enforces it with the same kind of triggers
as the events table (0001); a session's own log is untouched (docs/campaigns.md).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_campaigns"
down_revision = "0014_signed_out_devices"
branch_labels = None
depends_on = None

TABLES = ("campaigns", "campaign_sessions")
REFUSAL = "campaigns are append-only"


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


def _postgres_triggers(table: str) -> list[str]:
    return [
        f"""
        CREATE TRIGGER {table}_reject_change BEFORE UPDATE OR DELETE ON {table}
        FOR EACH ROW EXECUTE FUNCTION campaigns_reject_change()
        """,
        f"""
        CREATE TRIGGER {table}_reject_truncate BEFORE TRUNCATE ON {table}
        FOR EACH STATEMENT EXECUTE FUNCTION campaigns_reject_change()
        """,
    ]


POSTGRES_FUNCTION = f"""
CREATE FUNCTION campaigns_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '{REFUSAL}: % is not allowed', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$
"""


def upgrade() -> None:
    op.create_table(
        "campaigns",
        sa.Column("campaign_id", sa.String(200), primary_key=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("started_by", sa.Text(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "campaign_sessions",
        sa.Column("session_id", sa.String(200), primary_key=True),
        sa.Column("campaign_id", sa.String(200), nullable=False, index=True),
        sa.Column("added_by", sa.Text(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
    )
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        statements = [s for table in TABLES for s in _sqlite_triggers(table)]
    elif dialect == "postgresql":
        statements = [POSTGRES_FUNCTION] + [
            s for table in TABLES for s in _postgres_triggers(table)
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
        op.execute("DROP FUNCTION campaigns_reject_change()")

"""The events table and the session lock rows, on the one metadata every table joins
(store/all_tables.py lists them)."""

from __future__ import annotations

import sqlalchemy as sa

from diceledger.infra.store.sealing import EVENT_TYPE_LENGTH, STREAM_ID_LENGTH
from diceledger.infra.store.xid import TransactionId

metadata = sa.MetaData()

# INTEGER on SQLite so the column is the rowid; with AUTOINCREMENT a position is never reused.
Position = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
# The writing transaction's id (migration 0011): xid8 filled by pg_current_xact_id() on
# PostgreSQL, always 0 on SQLite, whose one writer at a time commits in position order.
WriterTransaction = (
    sa.BigInteger().with_variant(sa.Integer(), "sqlite").with_variant(TransactionId(), "postgresql")
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("position", Position, sa.Identity(), primary_key=True),
    sa.Column("event_id", sa.String(36), nullable=False),
    sa.Column("stream_id", sa.String(STREAM_ID_LENGTH), nullable=False),
    sa.Column("stream_version", sa.Integer(), nullable=False),
    sa.Column("event_type", sa.String(EVENT_TYPE_LENGTH), nullable=False),
    sa.Column("schema_version", sa.Integer(), nullable=False),
    sa.Column("data", sa.JSON(), nullable=False),
    sa.Column("meta", sa.JSON(), nullable=False),
    sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("prev_hash", sa.String(64), nullable=False),
    sa.Column("hash", sa.String(64), nullable=False),
    sa.Column("transaction_id", WriterTransaction, sa.FetchedValue(), nullable=False),
    # Serves read_stream, current_version and optimistic concurrency.
    sa.UniqueConstraint("stream_id", "stream_version", name="uq_events_stream_version"),
    # Serves idempotent retries and import.
    sa.UniqueConstraint("event_id", name="uq_events_event_id"),
    # Serves read_all on PostgreSQL, which reads in (transaction_id, position) order. SQLite
    # reads by position alone, so its copy is kept empty (WHERE 0) and costs appends nothing.
    sa.Index(
        "ix_events_transaction_position", "transaction_id", "position", sqlite_where=sa.false()
    ),
    sqlite_autoincrement=True,
)

# One row per session and lock (``infra.store.session_lock``): on PostgreSQL a writer locks
# its row (SELECT ... FOR UPDATE), which needs UPDATE on this table, a grant only the app
# role holds, where an advisory lock is open to any role that may connect. The rows carry
# nothing else; SQLite, with one machine's writers, locks a file instead.
session_locks = sa.Table(
    "session_locks",
    metadata,
    sa.Column("stream_id", sa.String(STREAM_ID_LENGTH), primary_key=True),
    sa.Column("purpose", sa.String(16), primary_key=True),
)

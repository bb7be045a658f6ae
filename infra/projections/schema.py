"""The projection tables, on the same metadata as the events (migrations create them)."""

from __future__ import annotations

import sqlalchemy as sa

from diceledger.infra.store.schema import metadata

Amount = sa.BigInteger()
Position = sa.BigInteger()

# One row per projection: the last event position its rows include.
projection_checkpoints = sa.Table(
    "projection_checkpoints",
    metadata,
    sa.Column("name", sa.String(50), primary_key=True),
    sa.Column("position", Position, nullable=False),
)

# The statistics projection: integer counters per (session, player, scope, metric).
stat_counters = sa.Table(
    "stat_counters",
    metadata,
    sa.Column("session_id", sa.String(200), primary_key=True),
    sa.Column("player", sa.Text(), primary_key=True),
    sa.Column("scope", sa.String(10), primary_key=True),
    sa.Column("metric", sa.String(64), primary_key=True),
    sa.Column("value", Amount, nullable=False),
)

# Who is GM where, so that a viewer's scope is chosen without replaying.
stat_members = sa.Table(
    "stat_members",
    metadata,
    sa.Column("session_id", sa.String(200), primary_key=True),
    sa.Column("name", sa.Text(), primary_key=True),
    sa.Column("role", sa.String(20), nullable=False),
)

# The session directory (`session list`): one row per session, ordered by where it started.
session_directory = sa.Table(
    "session_directory",
    metadata,
    sa.Column("session_id", sa.String(200), primary_key=True),
    sa.Column("title", sa.Text(), nullable=False),
    sa.Column("gm", sa.Text(), nullable=False),
    sa.Column("rolls", Amount, nullable=False),
    sa.Column("ended", sa.Boolean(), nullable=False),
    sa.Column("position", Position, nullable=False, unique=True),
)

# Members are kept by name, so that joining again (a player made co-GM) counts once.
session_directory_members = sa.Table(
    "session_directory_members",
    metadata,
    sa.Column("session_id", sa.String(200), primary_key=True),
    sa.Column("name", sa.Text(), primary_key=True),
)

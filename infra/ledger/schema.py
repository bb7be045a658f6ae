"""The tables of the checkpoint ledger: stored Merkle subtrees and issued checkpoints.

Both only grow: migration 0006 gives them the same UPDATE/DELETE-refusing triggers as
the events table.
"""

from __future__ import annotations

import sqlalchemy as sa

from diceledger.infra.store.schema import metadata
from diceledger.infra.store.sealing import STREAM_ID_LENGTH

# Node (level, node_index) of a session's tree: the root of its 2**level leaves from
# node_index * 2**level on. Written once, when complete; never changes after.
merkle_nodes = sa.Table(
    "merkle_nodes",
    metadata,
    sa.Column("stream_id", sa.String(STREAM_ID_LENGTH), primary_key=True),
    sa.Column("level", sa.SmallInteger(), primary_key=True, autoincrement=False),
    sa.Column("node_index", sa.BigInteger(), primary_key=True, autoincrement=False),
    sa.Column("hash", sa.LargeBinary(32), nullable=False),
)

# One row per signed tree size: the primary key makes a second root for a size impossible.
signed_checkpoints = sa.Table(
    "signed_checkpoints",
    metadata,
    sa.Column("stream_id", sa.String(STREAM_ID_LENGTH), primary_key=True),
    sa.Column("tree_size", sa.BigInteger(), primary_key=True, autoincrement=False),
    sa.Column("root", sa.LargeBinary(32), nullable=False),
    sa.Column("note", sa.Text(), nullable=False),
    sa.Column("key_id", sa.String(8), nullable=False),
    sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
    # The tree's compact range: the hashes of its right-edge complete subtrees (the nodes
    # of ``root_plan(tree_size)``), 32 bytes each, largest first. Signing the next tree
    # grows it with the new leaves and reads nothing else (migration 0013; NULL before).
    sa.Column("edge", sa.LargeBinary(), nullable=True),
)

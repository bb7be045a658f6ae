"""Seal the vault's seeds: store AES-256-GCM ciphertext instead of the seed bytes.

Rows written before are sealed here, in the same transaction that changes the column, so
after the upgrade no seed is left readable in the database. Sealing needs the seed key
(DICELEDGER_SEED_KEY or the default file, created if missing): run `db upgrade` where the
server reads its keys. A vault with no rows upgrades without touching any key.
The downgrade opens the seeds again (the older code reads only plain seeds).

The old bytes must leave the disk too: SQLite overwrites freed pages here (secure_delete);
on PostgreSQL run `VACUUM FULL seed_vault` after the upgrade, which rewrites the table
without the dead row versions that still hold them.

Revision ID: 0007_sealed_seeds
Revises: 0006_merkle_nodes
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0007_sealed_seeds"
down_revision = "0006_merkle_nodes"
branch_labels = None
depends_on = None

vault = sa.table(
    "seed_vault",
    sa.column("stream_id", sa.String()),
    sa.column("commitment", sa.String()),
    sa.column("seed", sa.LargeBinary()),
    sa.column("sealed_seed", sa.LargeBinary()),
)
Convert = Callable[[str, str, bytes], bytes]


def _rewrite(source: str, target: str, convert: Callable[[], Convert]) -> None:
    """Fill column ``target`` from ``source`` row by row (the key is loaded only if needed)."""
    bind = op.get_bind()
    rows = bind.execute(sa.select(vault.c.stream_id, vault.c.commitment, vault.c[source])).all()
    if not rows:
        return
    change = convert()
    for stream_id, commitment, value in rows:
        bind.execute(
            vault.update()
            .where(vault.c.stream_id == stream_id, vault.c.commitment == commitment)
            .values({target: change(stream_id, commitment, bytes(value))})
        )


def _sealer() -> Convert:
    from diceledger.infra.vault.cipher import load_seed_cipher

    return load_seed_cipher().seal


def _opener() -> Convert:
    from diceledger.infra.vault.cipher import load_seed_cipher

    return load_seed_cipher().open


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("PRAGMA secure_delete = ON")
    op.add_column("seed_vault", sa.Column("sealed_seed", sa.LargeBinary(), nullable=True))
    _rewrite("seed", "sealed_seed", _sealer)
    with op.batch_alter_table("seed_vault") as batch:
        batch.drop_column("seed")
        batch.alter_column("sealed_seed", existing_type=sa.LargeBinary(), nullable=False)


def downgrade() -> None:
    op.add_column("seed_vault", sa.Column("seed", sa.LargeBinary(), nullable=True))
    _rewrite("sealed_seed", "seed", _opener)
    with op.batch_alter_table("seed_vault") as batch:
        batch.drop_column("sealed_seed")
        batch.alter_column("seed", existing_type=sa.LargeBinary(), nullable=False)

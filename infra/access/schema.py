"""The tables of the server's access control; secrets are kept only as SHA-256 hashes."""

from __future__ import annotations

import sqlalchemy as sa

from diceledger.infra.store.schema import metadata

member_tokens = sa.Table(
    "member_tokens",
    metadata,
    sa.Column("token_id", sa.String(36), primary_key=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("session_id", sa.String(200), nullable=False, index=True),
    sa.Column("member", sa.Text(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    # A device signed out (by its member, or pushed out by a newer one); no revocation.
    sa.Column("signed_out_at", sa.DateTime(timezone=True), nullable=True),
)

invites = sa.Table(
    "invites",
    metadata,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("session_id", sa.String(200), nullable=False, index=True),
    sa.Column("created_by", sa.Text(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("redeemed_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("redeemed_by", sa.Text(), nullable=True),
)

# One row per (token, Idempotency-Key): the request's fingerprint and, once answered, the
# answer, so a client's retry gets the first answer instead of a second roll.
idempotent_requests = sa.Table(
    "idempotent_requests",
    metadata,
    sa.Column("scope", sa.String(100), primary_key=True),
    sa.Column("idempotency_key", sa.String(200), primary_key=True),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("status", sa.Integer(), nullable=True),
    sa.Column("body", sa.Text(), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

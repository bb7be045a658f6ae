"""The tables that tie Discord to sessions: a channel's session, a Discord user's member."""

from __future__ import annotations

import sqlalchemy as sa

from diceledger.infra.store.schema import metadata

# The session a channel plays. A channel plays one session at a time; once it has ended,
# starting another one rebinds the channel.
discord_channels = sa.Table(
    "discord_channels",
    metadata,
    sa.Column("channel_id", sa.String(32), primary_key=True),
    sa.Column("session_id", sa.String(200), nullable=False, index=True),
    sa.Column("bound_by", sa.String(32), nullable=False),
    sa.Column("bound_at", sa.DateTime(timezone=True), nullable=False),
)

# Which member of a session a Discord user is. Identity is the user id Discord signs into
# every interaction, never a name anyone types; a member is one Discord user at most.
discord_members = sa.Table(
    "discord_members",
    metadata,
    sa.Column("session_id", sa.String(200), primary_key=True),
    sa.Column("user_id", sa.String(32), primary_key=True),
    sa.Column("member", sa.Text(), nullable=False),
    sa.Column("linked_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("session_id", "member", name="uq_discord_members_member"),
)

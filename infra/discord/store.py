"""Keep the Discord bindings in the store's database: channel to session, user to member."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Engine

from diceledger.domain.errors import ConflictError
from diceledger.infra.discord.schema import discord_channels, discord_members
from diceledger.infra.store.database import translate_errors
from diceledger.infra.store.transaction import writing


class BindingStore:
    """Which session each channel plays, and which member each Discord user is."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def channel_session(self, channel_id: str) -> str | None:
        """Return the session the channel plays, or None."""
        query = sa.select(discord_channels.c.session_id).where(
            discord_channels.c.channel_id == channel_id
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            found: str | None = connection.execute(query).scalar()
        return found

    def bind_channel(
        self, channel_id: str, session_id: str, user_id: str, now: datetime, replaces: str | None
    ) -> None:
        """Bind the channel to a session; ``replaces`` is the session it played before.

        The update names the session it replaces, so two GMs starting sessions in the same
        channel at once cannot both win: the second finds the row changed and is refused.
        """
        row = {"session_id": session_id, "bound_by": user_id, "bound_at": now}
        with self._writing() as connection:
            if replaces is None:
                connection.execute(discord_channels.insert(), {"channel_id": channel_id, **row})
                return
            changed = connection.execute(
                discord_channels.update()
                .where(discord_channels.c.channel_id == channel_id)
                .where(discord_channels.c.session_id == replaces)
                .values(**row)
            ).rowcount
            if changed != 1:
                raise ConflictError("another session was bound to this channel at the same time")

    def member(self, session_id: str, user_id: str) -> str | None:
        """Return the member a Discord user is in the session, or None."""
        query = (
            sa.select(discord_members.c.member)
            .where(discord_members.c.session_id == session_id)
            .where(discord_members.c.user_id == user_id)
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            found: str | None = connection.execute(query).scalar()
        return found

    def user_of(self, session_id: str, member: str) -> str | None:
        """Return the Discord user linked to a member of the session, or None."""
        query = (
            sa.select(discord_members.c.user_id)
            .where(discord_members.c.session_id == session_id)
            .where(discord_members.c.member == member)
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            found: str | None = connection.execute(query).scalar()
        return found

    def link(self, session_id: str, user_id: str, member: str, now: datetime) -> None:
        """Record that a Discord user is this member of the session."""
        row = {"session_id": session_id, "user_id": user_id, "member": member, "linked_at": now}
        with self._writing() as connection:
            connection.execute(discord_members.insert(), row)

    @contextmanager
    def _writing(self) -> Iterator[sa.Connection]:
        try:
            # The request's transaction if one is open (a savepoint keeps a collision from
            # spoiling the rest of it), else one of its own.
            with writing(self._engine) as connection, connection.begin_nested():
                yield connection
        except exc.IntegrityError:
            raise ConflictError("the Discord binding was made at the same time") from None

"""Keep campaigns and their sessions in the store's database, in two append-only tables."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Engine

from diceledger.domain.campaign import Campaign, refuse_second_campaign
from diceledger.infra.campaigns.schema import campaign_sessions, campaigns
from diceledger.infra.store.database import translate_errors
from diceledger.infra.store.transaction import Transaction, one_transaction, writing


class CampaignStore:
    """Campaigns and the sessions in each, beside the event log."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def add_campaign(self, campaign_id: str, title: str, started_by: str, now: datetime) -> None:
        """Record a new campaign."""
        row = {"campaign_id": campaign_id, "title": title, "started_by": started_by}
        with writing(self._engine) as connection:
            connection.execute(campaigns.insert(), row | {"started_at": now})

    def add_session(self, campaign_id: str, session_id: str, added_by: str, now: datetime) -> None:
        """Put a session in a campaign; refuse one that is in a campaign already."""
        row = {"session_id": session_id, "campaign_id": campaign_id, "added_by": added_by}
        try:
            with writing(self._engine) as connection, connection.begin_nested():
                connection.execute(campaign_sessions.insert(), row | {"added_at": now})
        except exc.IntegrityError:
            refuse_second_campaign(session_id, self.campaign_of(session_id))
            raise

    def find(self, campaign_id: str) -> Campaign | None:
        """Return the campaign with its sessions in the order they were added, or None."""
        found = self._campaigns(campaigns.c.campaign_id == campaign_id)
        return found[0] if found else None

    def all(self) -> list[Campaign]:
        """Return every campaign, in the order they were started."""
        return self._campaigns(sa.true())

    def _campaigns(self, which: sa.ColumnElement[bool]) -> list[Campaign]:
        """Return the campaigns ``which`` picks, each with its sessions, in two queries."""
        heads = (
            sa.select(campaigns)
            .where(which)
            .order_by(campaigns.c.started_at, campaigns.c.campaign_id)
        )
        members = (
            sa.select(campaign_sessions.c.campaign_id, campaign_sessions.c.session_id)
            .where(
                campaign_sessions.c.campaign_id.in_(
                    heads.with_only_columns(campaigns.c.campaign_id)
                )
            )
            .order_by(campaign_sessions.c.added_at, campaign_sessions.c.session_id)
        )
        with self._reading() as connection:
            rows = list(connection.execute(heads))
            sessions: dict[str, list[str]] = {row.campaign_id: [] for row in rows}
            for campaign_id, session_id in connection.execute(members):
                sessions[campaign_id].append(session_id)
        return [
            Campaign(row.campaign_id, row.title, row.started_by, tuple(sessions[row.campaign_id]))
            for row in rows
        ]

    def campaign_of(self, session_id: str) -> str | None:
        """Return the campaign a session belongs to, or None."""
        query = sa.select(campaign_sessions.c.campaign_id).where(
            campaign_sessions.c.session_id == session_id
        )
        with self._reading() as connection:
            found: str | None = connection.execute(query).scalar()
            return found

    def transaction(self) -> AbstractContextManager[Transaction]:
        """Open one transaction: a session started and put in its campaign together."""
        return one_transaction(self._engine)

    def _reading(self) -> AbstractContextManager[sa.Connection]:
        return _reading(self._engine)


@contextmanager
def _reading(engine: Engine) -> Iterator[sa.Connection]:
    with translate_errors(engine.url), engine.connect() as connection:
        yield connection

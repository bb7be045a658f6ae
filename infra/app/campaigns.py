"""Campaigns: start one, start a session in one, show one, and its statistics.

A campaign groups one group's sessions. Its members are its sessions' members, by name:
only a GM of the group adds a session (domain.campaign), and each session's invites
decide who joins it, so one name is one person across the campaign. A viewer sees, in
each session, what the member of that name may see there, and nothing of a session they
are not a member of. A credential of one session (``via``) reaches only the campaign that
session belongs to; any other campaign does not exist for it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from diceledger.domain.campaign import Campaign, campaign_title, may_add_session
from diceledger.domain.errors import NotFoundError
from diceledger.domain.json import JsonObject
from diceledger.domain.projections.report import ACROSS_SESSIONS, PlayerReport
from diceledger.domain.projections.tidy import campaign_csv, report_json, reports_json
from diceledger.domain.session.commands import CarriedCommand
from diceledger.infra.app.results import LuckResult, SessionStartedResult
from diceledger.infra.app.sessions import session_id_for
from diceledger.infra.campaigns.store import CampaignStore
from diceledger.infra.store.port import Clock, utc_now

if TYPE_CHECKING:
    from diceledger.infra.app.application import Application, Progress

CAMPAIGN_PREFIX = "c-"  # a campaign id never reads as a session's


@dataclass(frozen=True, slots=True)
class CampaignSession:
    """One session of a campaign, and the viewer's role in it (None: not a member)."""

    session_id: str
    title: str
    role: str | None


@dataclass(frozen=True, slots=True)
class CampaignView:
    """A campaign as a viewer sees it: its sessions in the order they were added."""

    campaign_id: str
    title: str
    started_by: str
    sessions: tuple[CampaignSession, ...]

    def as_dict(self) -> JsonObject:
        """Return the campaign as JSON (the CLI's --json and the API answer alike)."""
        return {
            "campaign_id": self.campaign_id,
            "title": self.title,
            "started_by": self.started_by,
            "sessions": [
                {"session_id": s.session_id, "title": s.title, "role": s.role}
                for s in self.sessions
            ],
        }


@dataclass(frozen=True, slots=True)
class CampaignStatistics:
    """Per-player statistics of a campaign: one report per session the viewer is a member
    of (in the campaign's order: luck over time), then each player's over all of them."""

    viewer: str
    campaign: CampaignView
    per_session: tuple[PlayerReport, ...]
    totals: tuple[PlayerReport, ...]
    # Per character: per session in the campaign's order, then over all of them (``ALL``);
    # each report's ``player`` is the character's name.
    characters: tuple[PlayerReport, ...] = ()

    @property
    def reports(self) -> tuple[PlayerReport, ...]:
        """Return every player's report: the per-session ones, then the totals (``ALL``)."""
        return self.per_session + self.totals

    def as_dict(self) -> JsonObject:
        """Return the statistics document: the campaign, the viewer, the players' reports
        and the characters'."""
        characters: JsonObject = {
            "characters": [report_json(r, "character") for r in self.characters]
        }
        return self.campaign.as_dict() | reports_json(self.reports, self.viewer) | characters

    @property
    def csv(self) -> str:
        """Return the tidy CSV of the players' reports, then the characters'."""
        return campaign_csv(self.reports, self.characters)


class Campaigns:
    """The campaign use cases, over the application and the campaign tables."""

    def __init__(
        self,
        app: Application,
        store: CampaignStore,
        clock: Clock = utc_now,
        new_suffix: Callable[[], str] = lambda: secrets.token_hex(3),
    ) -> None:
        self._app = app
        self._store = store
        self._clock = clock
        self._new_suffix = new_suffix

    def start(self, actor: str, title: str, first_session: str | None = None) -> Campaign:
        """Start a campaign; with ``first_session`` (of which ``actor`` is a GM) it holds
        that session from the start."""
        clean = campaign_title(title, actor)
        campaign_id = CAMPAIGN_PREFIX + session_id_for(clean, self._new_suffix())
        campaign = Campaign(campaign_id, clean, actor, ())
        with self._store.transaction():
            if first_session is not None:
                roles = {first_session: self._app.members(first_session)}
                may_add_session(campaign, actor, roles, first_session)
            self._store.add_campaign(campaign_id, clean, actor, self._clock())
            if first_session is not None:
                self._store.add_session(campaign_id, first_session, actor, self._clock())
        return self._found(campaign_id)

    def start_session(
        self,
        actor: str,
        campaign_id: str,
        title: str,
        manual_dice_allowed: bool = True,
        via: str | None = None,
    ) -> SessionStartedResult:
        """Start a session in the campaign, ``actor`` its GM, in one transaction.

        It starts with the characters of the campaign's last session as they stand (as
        they were at its end, once it has ended), recorded in its own log.
        """
        campaign = self._reachable(campaign_id, via)
        may_add_session(campaign, actor, self._roles(campaign), via)
        with self._store.transaction():
            carried = self._carried(campaign)
            started = self._app.start_session(actor, title, manual_dice_allowed, carried)
            self._store.add_session(campaign_id, started.session_id, actor, self._clock())
        return started

    def show(self, viewer: str, campaign_id: str, via: str | None = None) -> CampaignView:
        """Return the campaign and the viewer's role in each of its sessions."""
        campaign = self._reachable(campaign_id, via)
        return self._view(campaign, viewer, self._roles(campaign))

    def all(self) -> tuple[Campaign, ...]:
        """Return every campaign in the store (its owner's listing)."""
        return tuple(self._store.all())

    def campaign_of(self, session_id: str) -> str | None:
        """Return the campaign a session belongs to, or None."""
        return self._store.campaign_of(session_id)

    def statistics(
        self,
        viewer: str,
        campaign_id: str,
        player: str | None = None,
        via: str | None = None,
        progress: Progress | None = None,
    ) -> CampaignStatistics:
        """Return the campaign's statistics as ``viewer`` may see them, session by session.

        The figures are the session statistics' own counters, summed over the sessions
        (exact odds and variances added, never averages), then derived once.
        """
        campaign = self._reachable(campaign_id, via)
        roles = self._roles(campaign)
        mine = [sid for sid in campaign.sessions if viewer in roles[sid]]
        found = self._app.statistics(viewer, None, player, progress, mine) if mine else None
        order = {sid: number for number, sid in enumerate(mine)}
        reports = _in_order(found.reports if found else (), order)
        per_session = tuple(r for r in reports if r.session_id != ACROSS_SESSIONS)
        totals = tuple(r for r in reports if r.session_id == ACROSS_SESSIONS)
        view = self._view(campaign, viewer, roles)
        characters = self._app.character_statistics(viewer, mine).reports if mine else ()
        return CampaignStatistics(viewer, view, per_session, totals, _in_order(characters, order))

    def luck(self, viewer: str, campaign_id: str, via: str | None = None) -> tuple[LuckResult, ...]:
        """Return each player's rated checks, session by session in the campaign's order,
        of the sessions ``viewer`` is a member of, as they may see them there."""
        campaign = self._reachable(campaign_id, via)
        roles = self._roles(campaign)
        return tuple(self._app.luck(viewer, s) for s in campaign.sessions if viewer in roles[s])

    def _view(
        self, campaign: Campaign, viewer: str, roles: Mapping[str, Mapping[str, str]]
    ) -> CampaignView:
        sessions = tuple(
            CampaignSession(sid, self._app.title(sid), roles[sid].get(viewer))
            for sid in campaign.sessions
        )
        return CampaignView(campaign.campaign_id, campaign.title, campaign.started_by, sessions)

    def _carried(self, campaign: Campaign) -> tuple[CarriedCommand, ...]:
        if not campaign.sessions:
            return ()
        return self._app.characters(campaign.sessions[-1]).carried()

    def _roles(self, campaign: Campaign) -> dict[str, dict[str, str]]:
        return {sid: self._app.members(sid) for sid in campaign.sessions}

    def _reachable(self, campaign_id: str, via: str | None) -> Campaign:
        """Return the campaign; for a credential of a session outside it, there is none."""
        campaign = self._store.find(campaign_id)
        if campaign is None or (via is not None and via not in campaign.sessions):
            raise unknown_campaign(campaign_id)
        return campaign

    def _found(self, campaign_id: str) -> Campaign:
        found = self._store.find(campaign_id)
        if found is None:
            raise unknown_campaign(campaign_id)
        return found


def _in_order(
    reports: tuple[PlayerReport, ...], order: Mapping[str, int]
) -> tuple[PlayerReport, ...]:
    """Return the per-session reports in the campaign's order, then the totals (``ALL``)."""
    per_session = sorted(
        (r for r in reports if r.session_id != ACROSS_SESSIONS),
        key=lambda r: (order[r.session_id], r.player),
    )
    return (*per_session, *(r for r in reports if r.session_id == ACROSS_SESSIONS))


def unknown_campaign(campaign_id: str) -> NotFoundError:
    """Return the error for a campaign id that names no campaign (for this caller)."""
    return NotFoundError(f"no campaign '{campaign_id}'")

"""The pages of one session, for its members (by cookie): table, GM panel, replay, stats,
verify, and the statistics of the campaign it belongs to.

Each page reads what it shows through the application as the signed-in member, so a
player's page holds exactly what the API would give that player; the scripts in
web/static then keep the table live through the JSON API.
"""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request
from starlette.responses import Response

from diceledger.domain.errors import NotFoundError
from diceledger.infra.app.access import MOST_DEVICES
from diceledger.infra.app.odds import OddsQuery, Side, odds_of
from diceledger.infra.app.results import Moment
from diceledger.web.auth import Member
from diceledger.web.campaign_context import campaign_context
from diceledger.web.context import Services
from diceledger.web.session_context import (
    event_position,
    moment_of,
    replay_context,
    stats_context,
)
from diceledger.web.templating import render

router = APIRouter(prefix="/s/{session_id}", tags=["pages"], include_in_schema=False)

# The roll form starts as a check of one d20. Its odds come with the page, as the API would
# answer them, so the line under the Roll button is there at the first paint: filled in a
# moment later, it pushed everything below it down under a phone user's finger.
FIRST_ROLL = "1d20"
FIRST_ODDS = odds_of(OddsQuery(Side(FIRST_ROLL))).as_json()


@router.get("")
def table(session_id: str, request: Request, member: Member, web: Services) -> Response:
    """Show the table: the roll form, the live log and the members."""
    session = web.app.session(member.member, session_id)
    character = web.app.characters(session_id).played_by(member.member)
    context = {
        "session": session,
        "character": character,
        "most_devices": MOST_DEVICES,
        "first_roll": FIRST_ROLL,
        "first_odds": {"query": urlencode([("expression", FIRST_ROLL)]), "answer": FIRST_ODDS},
    }
    return render(request, "table.html", context)


@router.get("/gm")
def gm_panel(session_id: str, request: Request, member: Member, web: Services) -> Response:
    """Show the GM's panel: invites, members, disputes with their reviews, seeds, the end."""
    members = web.access.members(member)  # refuses anyone but a GM
    session = web.app.session(member.member, session_id)
    reviews = [web.app.review(member.member, session_id, roll) for roll in session.disputed]
    context = {"session": session, "members": members, "reviews": reviews}
    return render(request, "gm.html", context)


@router.get("/replay")
def replay(
    session_id: str,
    request: Request,
    member: Member,
    web: Services,
    until_event: str = "",
    until_position: str = "",
    at: str = "",
) -> Response:
    """Show the session as it happened, up to a chosen event (counted from 1, as the
    scrubber does), store position or time."""
    whole = web.app.replay(member.member, session_id, Moment())
    moment = moment_of(event_position(whole, until_event) or until_position, at)
    shown = web.app.replay(member.member, session_id, moment) if moment.given else whole
    session = web.app.session(member.member, session_id)
    context = {"session": session} | replay_context(whole, shown, moment)
    return render(request, "replay.html", context)


@router.get("/stats")
def stats(session_id: str, request: Request, member: Member, web: Services) -> Response:
    """Show each player's statistics with charts."""
    reports = web.app.statistics(member.member, session_id).reports
    luck = web.app.luck(member.member, session_id).series
    session = web.app.session(member.member, session_id)
    campaign_id = web.app.campaigns.campaign_of(session_id)
    context = {"session": session, "campaign_id": campaign_id} | stats_context(reports, luck)
    return render(request, "stats.html", context)


@router.get("/campaign")
def campaign(session_id: str, request: Request, member: Member, web: Services) -> Response:
    """Show the statistics of the campaign the session belongs to, evening by evening."""
    campaign_id = web.app.campaigns.campaign_of(session_id)
    if campaign_id is None:
        raise NotFoundError(f"session '{session_id}' belongs to no campaign")
    found = web.app.campaigns.statistics(member.member, campaign_id, via=session_id)
    luck = web.app.campaigns.luck(member.member, campaign_id, via=session_id)
    session = web.app.session(member.member, session_id)
    context = {"session": session} | campaign_context(found, luck)
    return render(request, "campaign.html", context)


@router.get("/verify")
def verify(session_id: str, request: Request, member: Member, web: Services) -> Response:
    """Offer to verify the session's export in this browser."""
    session = web.app.session(member.member, session_id)
    return render(request, "verify.html", {"session": session})

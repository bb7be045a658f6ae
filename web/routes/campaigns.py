"""Campaigns: start one from a session, start a session in one, show one, its statistics.

A campaign route has no session in its path, so the caller's token (Authorization:
Bearer) says which session they act from; a campaign exists only for its sessions' tokens.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from diceledger.infra.app.access import Credential
from diceledger.infra.app.roll_form import MAX_TEXT
from diceledger.web.answers import answer
from diceledger.web.auth import bearer_token
from diceledger.web.context import Services, WebServices
from diceledger.web.openapi import BODY, COMMAND, FAILS, INPUT, MEMBER, STORE, also_answers, answers
from diceledger.web.responses import Campaign, CampaignStatistics, OpenedCampaignSession
from diceledger.web.routes.reads import CSV
from diceledger.web.schemas import NewCampaign, NewCampaignSession

router = APIRouter(prefix="/api/v1/campaigns", tags=["campaigns"])


def caller(request: Request, web: WebServices) -> Credential:
    """Return the member the request's bearer token stands for, or refuse it."""
    return web.access.authenticate(bearer_token(request))


@router.post(
    "",
    status_code=201,
    response_model=Campaign,
    responses=answers(FAILS, STORE, MEMBER, BODY, COMMAND),
)
def start_campaign(body: NewCampaign, request: Request, web: Services) -> Response:
    """Start a campaign whose first session is the caller's (a GM of it)."""
    member = web.access.in_session(caller(request, web), body.session_id)
    started = web.app.campaigns.start(member.member, body.title, member.session_id)
    return answer(web.app.campaigns.show(member.member, started.campaign_id).as_dict(), 201)


@router.post(
    "/{campaign_id}/sessions",
    status_code=201,
    response_model=OpenedCampaignSession,
    responses=answers(FAILS, STORE, MEMBER, BODY, INPUT, COMMAND),
)
def start_campaign_session(
    campaign_id: str, body: NewCampaignSession, request: Request, web: Services
) -> Response:
    """Start a session in the campaign (a GM of one of its sessions); the GM's new token."""
    member = caller(request, web)
    opened = web.access.open_in_campaign(member, campaign_id, body.title, not body.forbid_manual)
    started = opened.started
    return answer(
        {
            "campaign_id": campaign_id,
            "session_id": started.session_id,
            "title": started.title,
            "gm": started.gm,
            "gm_token": opened.gm_token,
            "commitment": started.commitment,
            "checkpoint": started.checkpoint,
        },
        201,
    )


@router.get(
    "/{campaign_id}", response_model=Campaign, responses=answers(FAILS, STORE, MEMBER, INPUT)
)
def show_campaign(campaign_id: str, request: Request, web: Services) -> Response:
    """Return the campaign: its sessions and the caller's role in each."""
    member = caller(request, web)
    view = web.app.campaigns.show(member.member, campaign_id, member.session_id)
    return answer(view.as_dict())


CAMPAIGN_CSV = (
    "Tidy CSV: one row a value (session_id,player,character,group,die,face,metric,value); "
    "a player's rows leave character empty, a character's leave player empty"
)


@router.get(
    "/{campaign_id}/stats",
    response_model=CampaignStatistics,
    responses=answers(FAILS, STORE, MEMBER, INPUT)
    | also_answers(CSV, {"type": "string", "description": CAMPAIGN_CSV}),
)
def campaign_stats(
    campaign_id: str,
    request: Request,
    web: Services,
    player: str | None = Query(default=None, max_length=MAX_TEXT),
    format: Literal["json", "csv"] = "json",
) -> Response:
    """Return per-player and per-character statistics per session and over the campaign,
    as JSON or tidy CSV.

    Only the sessions the caller is a member of count, each as the caller may see it.
    """
    member = caller(request, web)
    found = web.app.campaigns.statistics(member.member, campaign_id, player, member.session_id)
    if format == "csv":
        return Response(found.csv, media_type=f"{CSV}; charset=utf-8")
    return answer(found.as_dict())

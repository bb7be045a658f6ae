"""What needs no session: health, and exact odds."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from diceledger.domain.errors import ServerBusyError
from diceledger.infra.app.odds import OddsQuery, Side, odds_of
from diceledger.web.answers import answer, typed
from diceledger.web.context import Services
from diceledger.web.openapi import BUSY, FAILS, INPUT, answers
from diceledger.web.responses import Health, Odds
from diceledger.web.schemas import AS_WRITTEN

router = APIRouter(tags=["service"])
# Repeatable amounts (?adv=1&adv=2), one per source, as the CLI repeats --adv.
Amounts = Annotated[list[int], Query(max_length=20, default_factory=list)]


@router.get("/healthz", response_model=Health, responses=answers(FAILS))
def healthz() -> Response:
    """Tell a load balancer the worker is up."""
    return typed(Health(status="ok"))


@router.get("/api/v1/odds", response_model=Odds, responses=answers(FAILS, INPUT, BUSY))
def odds(  # keyword-only: the repeatable amounts have no default value of their own
    *,
    expression: str = Query(min_length=1, max_length=1000),
    target: Annotated[int | None, Query(), AS_WRITTEN] = None,
    dc: Annotated[int | None, Query(), AS_WRITTEN] = None,
    adv: Amounts,
    dis: Amounts,
    median: bool = False,
    eased: Amounts,
    hindered: Amounts,
    reroll: Annotated[int, Query(ge=0, le=1000), AS_WRITTEN] = 0,
    no_explode: bool = False,
    vs: str | None = Query(default=None, max_length=1000),
    vs_adv: Amounts,
    vs_dis: Amounts,
    vs_median: bool = False,
    vs_eased: Amounts,
    vs_hindered: Amounts,
    vs_reroll: Annotated[int, Query(ge=0, le=1000), AS_WRITTEN] = 0,
    web: Services,
) -> Response:
    """Return the exact odds of a roll, a check or an opposed check (the CLI's `odds --json`)."""
    versus = (
        None
        if vs is None
        else Side(vs, tuple(vs_adv), tuple(vs_dis), vs_median, tuple(vs_eased), tuple(vs_hindered))
    )
    query = OddsQuery(
        Side(expression, tuple(adv), tuple(dis), median, tuple(eased), tuple(hindered)),
        target=target,
        dc=dc,
        reroll=reroll,
        exploding=not no_explode,
        versus=versus,
        vs_reroll=vs_reroll,
    )
    if not (reroll or vs_reroll):
        return answer(odds_of(query).as_json())
    if not web.reroll_odds.acquire(timeout=web.settings.odds_wait_seconds):
        raise ServerBusyError("other odds with rerolls", retry_after=1)
    try:
        return answer(odds_of(query).as_json())
    finally:
        web.reroll_odds.release()

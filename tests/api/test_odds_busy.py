"""Odds with rerolls cost seconds of CPU at worst (docs/odds.md): a worker computes one such
question at a time, and a second asked meanwhile is told to come back, with nothing done,
instead of taking the CPU its tables' rolls need."""

from __future__ import annotations

from dataclasses import replace

from tests.api.conftest import Api

ODDS = "/api/v1/odds"


def test_odds_with_rerolls_wait_for_the_ones_running_and_then_say_busy(api: Api) -> None:
    api.services.settings = replace(api.services.settings, odds_wait_seconds=0.05)
    gate = api.services.reroll_odds
    assert gate.acquire(blocking=False)  # another request's odds with rerolls, running
    try:
        busy = api.get(ODDS, expression="1d20", target=13, reroll=1)
        assert busy.status_code == 503
        assert busy.headers["content-type"].startswith("application/problem+json")
        assert busy.json()["type"] == "/problems/server-busy"
        assert busy.headers["Retry-After"] == "1"
        against = api.get(ODDS, expression="1d20", vs="1d20", vs_reroll=1)
        assert against.status_code == 503
        # Odds without rerolls are not held up.
        plain = api.get(ODDS, expression="1d20", target=13)
        assert plain.status_code == 200 and plain.json()["success"]["fraction"] == "2/5"
    finally:
        gate.release()
    answered = api.get(ODDS, expression="1d20", target=13, reroll=1).json()
    assert (answered["success"]["fraction"], answered["best_success"]["fraction"]) == (
        "3/5",
        "16/25",
    )

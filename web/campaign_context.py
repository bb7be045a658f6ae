"""What the campaign page shows, shaped from the application's campaign results."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from diceledger.infra.app.campaigns import CampaignStatistics
from diceledger.infra.app.results import LuckResult
from diceledger.web.campaign_charts import SessionLuck, luck_per_session
from diceledger.web.charts import LuckStep
from diceledger.web.session_context import stats_context


@dataclass(frozen=True, slots=True)
class PlayerTrend:
    """One player's luck per session, as a chart."""

    player: str
    chart: Markup


def campaign_context(stats: CampaignStatistics, luck: Sequence[LuckResult]) -> dict[str, object]:
    """Return the session stats page's sections over the whole campaign, and each player's
    luck per session."""
    series: dict[str, list[LuckStep]] = defaultdict(list)
    for session in luck:  # in the campaign's order: the luck chart runs across evenings
        for player, steps in session.series.items():
            series[player].extend(steps)
    numbers = {s.session_id: n for n, s in enumerate(stats.campaign.sessions, start=1)}
    titles = {s.session_id: s.title for s in stats.campaign.sessions}
    per_player: dict[str, list[SessionLuck]] = defaultdict(list)
    for report in stats.per_session:
        value = report.groups["luck"]["luck"] or 0.0
        sid = report.session_id
        per_player[report.player].append(SessionLuck(numbers[sid], titles[sid], float(value)))
    trends = [
        PlayerTrend(player, Markup(luck_per_session(player, sessions)))
        for player, sessions in sorted(per_player.items())
    ]
    return {"campaign": stats.campaign, "trends": trends} | stats_context(stats.totals, series)

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


@dataclass(frozen=True, slots=True)
class CharacterRow:
    """One character's checks in one session, or over the campaign (``where`` None)."""

    character: str
    where: str | None
    won: int
    made: int
    expected: float
    luck: float
    z_score: float | None


def _character_rows(stats: CampaignStatistics) -> list[CharacterRow]:
    titles = {s.session_id: s.title for s in stats.campaign.sessions}
    rows = []
    for report in stats.characters:
        outcomes, luck = report.groups["outcomes"], report.groups["luck"]
        z = luck["z_score"]
        rows.append(
            CharacterRow(
                report.player,
                titles.get(report.session_id),
                int(outcomes["won"] or 0),
                int(outcomes["made"] or 0),
                float(luck["expected"] or 0.0),
                float(luck["luck"] or 0.0),
                None if z is None else float(z),
            )
        )
    return sorted(rows, key=lambda row: row.character)  # stable: sessions stay in order


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
    shown = {"campaign": stats.campaign, "trends": trends, "characters": _character_rows(stats)}
    return shown | stats_context(stats.totals, series)

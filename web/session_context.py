"""What the session pages show, shaped from the application's results for the templates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from markupsafe import Markup

from diceledger.domain.errors import InvalidInputError
from diceledger.domain.hashchain import format_timestamp
from diceledger.domain.projections.report import PlayerReport
from diceledger.domain.projections.timeline import Line
from diceledger.infra.app.results import Moment, ReplayResult
from diceledger.web.charts import (
    LuckStep,
    PlayerTally,
    explosions_and_rerolls,
    face_histogram,
    luck_over_session,
)


def moment_of(until_position: str, at: str) -> Moment:
    """Parse the replay form's fields: a store position, a time (UTC unless it names its
    zone), both or neither. A time without fractions of a second takes in its whole second:
    "up to 20:30:05" shows what happened at 20:30:05 too."""
    position = None
    if until_position.strip():
        if not until_position.strip().isdigit():
            raise InvalidInputError("a position is a whole number")
        position = int(until_position)
    when = None
    if at.strip():
        try:
            when = datetime.fromisoformat(at.strip())
        except ValueError:
            raise InvalidInputError("a time looks like 2025-05-01T20:30 (UTC)") from None
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
        if when.microsecond == 0 and "." not in at:
            when += timedelta(seconds=1, microseconds=-1)
    return Moment(position, when)


def event_position(whole: ReplayResult, until_event: str) -> str:
    """Return the store position of the session's Nth event (the scrubber counts events),
    or "" when none is chosen; a number past the end means the last."""
    if not until_event.strip():
        return ""
    if not until_event.strip().isdigit() or int(until_event) < 1:
        raise InvalidInputError("an event number is a whole number from 1")
    if not whole.lines:
        return ""
    return str(whole.lines[min(int(until_event), len(whole.lines)) - 1].position)


def shown_time(line: Line) -> str:
    """Return a line's time as the replay shows it (UTC, to the second; the page's script
    shows it in the viewer's own time)."""
    return format_timestamp(line.recorded_at)[:19].replace("T", " ")


def step_label(number: int, total: int, line: Line) -> str:
    """Return how the scrubber names a step: the event's number, and its roll if it has one."""
    roll = f", roll #{line.roll_id}" if line.roll_id is not None else ""
    return f"Event {number} of {total}{roll}"


def replay_context(whole: ReplayResult, shown: ReplayResult, moment: Moment) -> dict[str, object]:
    """Return the replay page's lines, the scrubber's steps and the standing at the moment."""
    total = len(whole.lines)
    steps = [step_label(n, total, line) for n, line in enumerate(whole.lines, start=1)]
    selected = max(len(shown.lines), 1)
    at = "" if moment.at is None else moment.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return {
        "lines": [(line, shown_time(line)) for line in shown.lines],
        "steps": steps,
        "selected": selected,
        "selected_label": steps[selected - 1] if steps else "",
        "at": at,
        "total_events": total,
        "as_of": shown.as_of,
        "moment_given": moment.given,
    }


@dataclass(frozen=True, slots=True)
class PlayerSection:
    """One player's figures and charts."""

    player: str
    report: PlayerReport
    luck_chart: Markup
    face_charts: tuple[Markup, ...]


# The charts escape every text they draw (web/svg.py), so their markup goes in as is.
def stats_context(
    reports: Sequence[PlayerReport], series: Mapping[str, Sequence[LuckStep]]
) -> dict[str, object]:
    """Return a section per player and the explosions-and-rerolls chart of everyone."""
    sections = [
        PlayerSection(
            report.player,
            report,
            Markup(luck_over_session(report.player, series.get(report.player, ()))),
            tuple(Markup(face_histogram(report.player, die)) for die in report.dice),
        )
        for report in reports
    ]
    tallies = Markup(explosions_and_rerolls([PlayerTally.of(r) for r in reports]))
    return {"sections": sections, "tallies": tallies}

"""Statistics as pictures: SVG charts rendered on the server, readable without images.

Each chart is an inline SVG with a title and a description that say in words what it
shows, text labels on its values, and shapes that differ by more than colour (solid
against dashed lines, plain against hatched bars). Text is escaped, so any name is safe.
The inputs are the statistics projection's own reports, or the small records below.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from diceledger.domain.projections.luck import LuckStep as LuckStep  # drawn here; made there
from diceledger.domain.projections.report import DieReport, PlayerReport
from diceledger.web.svg import Attribute, chart_id, document, element, number, text

Attributes = dict[str, Attribute]

# A viewBox near a phone's width keeps the text near its set size there; wider screens
# scale the whole chart up.
WIDTH = 400
LEFT, RIGHT, TOP, BOTTOM = 36, 8, 52, 44
PLOT_WIDTH = WIDTH - LEFT - RIGHT
PLOT_HEIGHT = 200
BASELINE = TOP + PLOT_HEIGHT
HEIGHT = BASELINE + BOTTOM
LUCK_WIDTH = PLOT_WIDTH - 100  # room on the right for the end labels
LABEL_GAP = 16
DASHED = "6 4"
BLUE, ORANGE = "#0b57a4", "#b35c00"
SOLID_LINE: Attributes = {"stroke": BLUE, "stroke-width": 3}
DASHED_LINE: Attributes = {"stroke": ORANGE, "stroke-width": 2, "stroke-dasharray": DASHED}
MIDDLE: Attributes = {"text-anchor": "middle"}
LONGEST_LABEL = 36  # characters of a name shown in a chart; the description has it whole


@dataclass(frozen=True, slots=True)
class PlayerTally:
    """How many of a player's dice exploded, and how many rerolls they spent."""

    player: str
    explosions: int
    rerolls: int

    @classmethod
    def of(cls, report: PlayerReport) -> PlayerTally:
        """Take the counts from a player's statistics report."""
        explosions = report.groups["explosions"]["count"] or 0
        rerolls = report.groups["rerolls"]["spent"] or 0
        return cls(report.player, int(explosions), int(rerolls))


def _line(x1: float, y1: float, x2: float, y2: float, dashed: bool = False) -> str:
    attributes: Attributes = {"x1": x1, "y1": y1, "x2": x2, "y2": y2, "stroke": "currentColor"}
    if dashed:
        attributes["stroke-dasharray"] = DASHED
    return element("line", attributes)


def _shortened(name: str) -> str:
    return name if len(name) <= LONGEST_LABEL else name[: LONGEST_LABEL - 1] + "…"


def _height(value: float, top: float) -> float:
    """Return the height on the plot of ``value`` on a scale from 0 to ``top``."""
    return value / top * PLOT_HEIGHT


def _axes(top: float) -> list[str]:
    """Return the axes of a plot whose vertical scale runs from 0 to ``top``."""
    end: Attributes = {"text-anchor": "end"}
    return [
        _line(LEFT, BASELINE, LEFT + PLOT_WIDTH, BASELINE),
        _line(LEFT, TOP, LEFT, BASELINE),
        text(LEFT - 4, BASELINE, "0", end),
        text(LEFT - 4, TOP + 10, number(top), end),
    ]


def face_histogram(player: str, die: DieReport) -> str:
    """Draw how often each face of one die size came up, against a fair die's expectation."""
    sides, rolls = die.sides, sum(die.faces)
    expected = rolls / sides
    top = math.ceil(max(*die.faces, expected, 1))
    slot = PLOT_WIDTH / sides
    parts = _axes(top)
    for face, count in enumerate(die.faces, start=1):
        x, height = LEFT + (face - 1) * slot, _height(count, top)
        bar: Attributes = {"x": x + slot * 0.15, "y": BASELINE - height, "width": slot * 0.7}
        bar |= {"height": height, "fill": BLUE, "data-face": face, "data-count": count}
        parts.append(element("rect", bar))
        middle: Attributes = {"text-anchor": "middle", "font-size": 11}
        parts.append(text(x + slot / 2, BASELINE - height - 4, str(count), middle))
        parts.append(text(x + slot / 2, BASELINE + 16, str(face), middle))
    fair_y = BASELINE - _height(expected, top)
    parts.append(_line(LEFT, fair_y, LEFT + PLOT_WIDTH, fair_y, dashed=True))
    # The heading says which die the chart is for, and counts dice, not rolls: one roll of
    # 3d6 puts three dice here.
    heading = f"d{sides}: {_dice(rolls)} · {_fit(die)}"
    parts.append(text(LEFT, 16, heading, {"font-weight": 700}))
    fair = f"dashed line: a fair d{sides} would show each face {expected:.1f} times"
    parts.append(text(LEFT, 32, fair))
    parts.append(text(LEFT + PLOT_WIDTH / 2, HEIGHT - 8, "face", MIDDLE))
    counts = ", ".join(f"face {face}: {count}" for face, count in enumerate(die.faces, start=1))
    description = (
        f"{_dice(rolls)} of a d{sides}; a fair die shows each face {expected:.1f} times "
        f"on average. {counts}. {_fit(die).capitalize()}."
    )
    return document(
        identifier=chart_id("faces", player, str(sides)),
        width=WIDTH,
        height=HEIGHT,
        title=f"{player}: d{sides} faces against a fair die",
        description=description,
        body="".join(parts),
    )


def _dice(count: int) -> str:
    return f"{count} die" if count == 1 else f"{count} dice"


def _fit(die: DieReport) -> str:
    p_value = die.figures.get("p_value")
    if die.figures.get("too_few") or p_value is None:
        return "too few rolls to judge fairness yet"
    return "chi-square test p < 0.001" if p_value < 0.001 else f"chi-square test p = {p_value:.3f}"


def luck_over_session(player: str, steps: Sequence[LuckStep]) -> str:
    """Draw a player's successes as the session went, against the successes expected."""
    actual = [0, *accumulate(int(step.won) for step in steps)]
    expected = [0.0, *accumulate(step.chance for step in steps)]
    top = math.ceil(max(actual[-1], expected[-1], 1))
    span = max(len(steps), 1)

    def path(values: Sequence[float], series: str, style: Attributes) -> str:
        points = " ".join(
            f"{number(LEFT + i / span * LUCK_WIDTH)},{number(BASELINE - _height(v, top))}"
            for i, v in enumerate(values)
        )
        shape: Attributes = {"points": points, "fill": "none", "data-series": series}
        return element("polyline", shape | style)

    parts = [
        *_axes(top),
        path(expected, "expected", DASHED_LINE),
        path(actual, "actual", SOLID_LINE),
        text(LEFT, 16, "solid line: successes", {"font-weight": 700}),
        text(LEFT, 32, "dashed line: successes expected from the odds"),
        text(LEFT + PLOT_WIDTH / 2, HEIGHT - 8, "rated checks, in order", MIDDLE),
    ]
    if steps:
        actual_y, expected_y = _end_labels(actual[-1], expected[-1], top)
        end_x = LEFT + LUCK_WIDTH + 6
        parts.append(text(end_x, actual_y, f"actual {actual[-1]}"))
        parts.append(text(end_x, expected_y, f"expected {expected[-1]:.1f}"))
    else:
        parts.append(text(LEFT + 8, BASELINE - 12, "no rated checks yet"))
    return document(
        identifier=chart_id("luck", player),
        width=WIDTH,
        height=HEIGHT,
        title=f"{player}: luck over the session",
        description=_luck_words(player, len(steps), actual[-1], expected[-1]),
        body="".join(parts),
    )


def _end_labels(actual: float, expected: float, top: float) -> tuple[float, float]:
    """Return the baselines of the two end labels, kept apart when the lines end close."""
    actual_y = BASELINE - _height(actual, top) + 4
    expected_y = BASELINE - _height(expected, top) + 4
    if abs(actual_y - expected_y) >= LABEL_GAP:
        return actual_y, expected_y
    middle, half = (actual_y + expected_y) / 2, LABEL_GAP / 2
    # The larger value sits higher on the page, and its label above the other one.
    if actual >= expected:
        return middle - half, middle + half
    return middle + half, middle - half


def _luck_words(player: str, checks: int, actual: int, expected: float) -> str:
    luck = round(actual - expected, 1)
    if luck > 0:
        verdict = f"{luck:+.1f}, luckier than expected"
    elif luck < 0:
        verdict = f"{luck:+.1f}, unluckier than expected"
    else:
        verdict = "as expected"
    return (
        f"After {checks} rated checks, {player} had {actual} successes where "
        f"{expected:.1f} were expected: {verdict}."
    )


ROW, BAR, GAP = 22, 18, 6
GROUP = ROW + 2 * (BAR + GAP) + 8
BAR_LEFT = 96
BAR_ROOM = WIDTH - BAR_LEFT - 40


def explosions_and_rerolls(tallies: Sequence[PlayerTally]) -> str:
    """Draw, per player, how many dice exploded and how many rerolls were spent."""
    top = max((max(t.explosions, t.rerolls) for t in tallies), default=0) or 1
    identifier = chart_id("tallies", *(t.player for t in tallies))
    hatch = f"{identifier}-hatch"
    pattern = element(
        "pattern",
        {"id": hatch, "width": 6, "height": 6, "patternUnits": "userSpaceOnUse"},
        element("rect", {"width": 6, "height": 6, "fill": ORANGE, "fill-opacity": 0.35})
        + element("path", {"d": "M0,6 L6,0", "stroke": ORANGE, "stroke-width": 2}),
    )
    parts = [element("defs", {}, pattern)]
    for index, tally in enumerate(tallies):
        y = TOP / 2 + index * GROUP
        parts.append(text(0, y + 14, _shortened(tally.player), {"font-weight": 700}))
        hatched = f"url(#{hatch})"
        bars = (("explosions", tally.explosions, BLUE), ("rerolls", tally.rerolls, hatched))
        for row, (metric, value, fill) in enumerate(bars):
            bar_y = y + ROW + row * (BAR + GAP)
            width = value / top * BAR_ROOM
            shape: Attributes = {"x": BAR_LEFT, "y": bar_y, "width": width, "height": BAR}
            shape |= {"fill": fill, "stroke": ORANGE} if row else {"fill": fill}
            shape |= {"data-player": tally.player, "data-metric": metric, "data-value": value}
            parts.append(element("rect", shape))
            parts.append(text(BAR_LEFT - 6, bar_y + 13, metric, {"text-anchor": "end"}))
            parts.append(text(BAR_LEFT + width + 6, bar_y + 13, str(value)))
    if not tallies:
        parts.append(text(0, TOP / 2 + 14, "no players yet"))
    summary = " ".join(
        f"{t.player}: {t.explosions} explosions, {t.rerolls} rerolls." for t in tallies
    )
    return document(
        identifier=identifier,
        width=WIDTH,
        height=int(TOP + max(len(tallies), 1) * GROUP),
        title="Explosions and rerolls per player",
        description=summary or "No players yet.",
        body="".join(parts),
    )

"""A campaign's chart of its own: each player's luck, session by session.

Drawn like the session charts (web/charts.py, web/svg.py): an inline SVG with a title
and a description saying it in words, every value labelled, every text escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from diceledger.web.charts import (
    BASELINE,
    BLUE,
    HEIGHT,
    LEFT,
    MIDDLE,
    PLOT_HEIGHT,
    PLOT_WIDTH,
    TOP,
    WIDTH,
    Attributes,
)
from diceledger.web.svg import chart_id, document, element, number, text

ZERO = TOP + PLOT_HEIGHT / 2  # luck above the line is better than the odds expected


@dataclass(frozen=True, slots=True)
class SessionLuck:
    """One session's luck of one player: successes minus the successes expected."""

    number: int  # the session's place in the campaign, from 1
    title: str
    luck: float


def luck_per_session(player: str, sessions: Sequence[SessionLuck]) -> str:
    """Draw a bar per session: how far above or below the odds the player's luck was."""
    scale = max((abs(s.luck) for s in sessions), default=0.0) or 1.0
    step = PLOT_WIDTH / max(len(sessions), 1)
    parts = [
        element(
            "line",
            {"x1": LEFT, "y1": ZERO, "x2": LEFT + PLOT_WIDTH, "y2": ZERO, "stroke": "currentColor"},
        ),
        text(LEFT, 16, "bars: luck in each session (won minus expected)", {"font-weight": 700}),
        text(LEFT, 32, "above the line: luckier than the odds; below: unluckier"),
        text(LEFT + PLOT_WIDTH / 2, HEIGHT - 8, "sessions of the campaign, in order", MIDDLE),
    ]
    for i, session in enumerate(sessions):
        height = abs(session.luck) / scale * (PLOT_HEIGHT / 2 - 16)
        x = LEFT + i * step + step * 0.2
        top = ZERO - height if session.luck >= 0 else ZERO
        bar: Attributes = {
            "x": x,
            "y": top,
            "width": step * 0.6,
            "height": max(height, 1),
            "fill": BLUE,
            "data-session": session.number,
        }
        parts.append(element("rect", bar))
        label_y = top - 4 if session.luck >= 0 else top + height + 14
        parts.append(text(x + step * 0.3, label_y, f"{session.luck:+.1f}", MIDDLE))
        parts.append(text(x + step * 0.3, BASELINE + 18, str(session.number), MIDDLE))
    if not sessions:
        parts.append(text(LEFT + 8, ZERO - 12, "no rated checks in any session yet"))
    return document(
        identifier=chart_id("campaign-luck", player),
        width=WIDTH,
        height=HEIGHT,
        title=f"{player}: luck per session",
        description=_words(player, sessions),
        body="".join(parts),
    )


def _words(player: str, sessions: Sequence[SessionLuck]) -> str:
    if not sessions:
        return f"{player} has no rated checks in the campaign yet."
    each = "; ".join(
        f"session {s.number} ({s.title}): {number(round(s.luck, 1))}" for s in sessions
    )
    return f"Luck of {player}, session by session: {each}."

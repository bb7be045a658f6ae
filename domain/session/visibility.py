"""Who may see a roll: the one rule every output of a session goes through.

A public or revealed roll is seen by everyone. Until it is revealed, a ``gm`` roll is seen
by its roller and the GMs, a ``blind`` one by the GMs only (not by a player who rolled it),
and a ``self`` one by its roller alone, GMs included (the session's end reveals it). This is
answered here and nowhere else: the application layer turns each roll into a shown or a
hidden view by it, and the projections that hide rolls from a viewer (timeline, feed,
statistics, luck, receipts, exports) ask it too.
"""

from __future__ import annotations

from enum import Enum
from typing import TypeAlias

from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.state import Roll, SessionState


class Audience(Enum):
    """A viewer who is no one member: whoever reads a channel or a public page."""

    EVERYONE = "everyone"


# A member, by name, or an audience that sees only what every member may see.
Viewer: TypeAlias = str | Audience
EVERYONE = Audience.EVERYONE


def may_see(session: SessionState, roll: Roll, viewer: Viewer) -> bool:
    """Tell whether ``viewer`` may see the roll's request, dice and outcome."""
    if not roll.hidden:
        return True
    if not isinstance(viewer, str):
        return False
    match roll.mode:
        case RollMode.SELF:
            return viewer == roll.request.roller
        case RollMode.BLIND:
            return session.is_gm(viewer)
        case _:
            return viewer == roll.request.roller or session.is_gm(viewer)


def may_reveal(session: SessionState, roll: Roll, viewer: Viewer) -> bool:
    """Tell whether ``viewer`` may show the hidden roll to everyone: a ``self`` roll its
    roller alone, any other a GM (decide_followups.reveal_roll refuses everyone else)."""
    if not roll.hidden or not isinstance(viewer, str):
        return False
    if roll.mode is RollMode.SELF:
        return viewer == roll.request.roller
    return session.is_gm(viewer)


class Sight(Enum):
    """How one viewer sees one roll: a roll has at most these three views, whoever looks."""

    HIDDEN = "hidden"  # that it happened, by whom and in which mode
    SHOWN = "shown"  # in full
    REVEALABLE = "revealable"  # in full, and this viewer may show it to everyone


def sight_of(session: SessionState, roll: Roll, viewer: Viewer) -> Sight:
    """Return how ``viewer`` sees the roll: viewers of one sight are shown the same view."""
    if not may_see(session, roll, viewer):
        return Sight.HIDDEN
    return Sight.REVEALABLE if may_reveal(session, roll, viewer) else Sight.SHOWN


def hidden_from(session: SessionState, viewer: Viewer) -> frozenset[int]:
    """Return the rolls of the session that ``viewer`` may not see."""
    return frozenset(
        roll.roll_id for roll in session.rolls.values() if not may_see(session, roll, viewer)
    )

"""Who may see a roll: the one rule every output of a session goes through.

Today a roll is hidden only while it is a GM's blind roll not yet revealed, and a GM sees
every roll. A roll mode (a roll shown to the roller and the GMs, or to the roller alone)
is another case of this rule, answered here and nowhere else: the application layer turns
each roll into a shown or a hidden view by it, and the projections that hide rolls from a
viewer (timeline, feed, luck, receipts, exports) ask it too.
"""

from __future__ import annotations

from enum import Enum
from typing import TypeAlias

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
    return isinstance(viewer, str) and session.is_gm(viewer)


def hidden_from(session: SessionState, viewer: Viewer) -> frozenset[int]:
    """Return the rolls of the session that ``viewer`` may not see."""
    return frozenset(
        roll.roll_id for roll in session.rolls.values() if not may_see(session, roll, viewer)
    )

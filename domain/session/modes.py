"""Roll modes: who a roll is shown to until it is revealed (decided in visibility.py)."""

from __future__ import annotations

from enum import StrEnum


class RollMode(StrEnum):
    """Who may see a roll's request, dice and outcome before it is revealed.

    ``public`` is everyone; ``gm`` the roller and the GMs; ``blind`` the GMs only (a
    player's blind roll is hidden from that player too); ``self`` the roller only, until
    the roller reveals it or the session ends.
    """

    PUBLIC = "public"
    GM = "gm"
    BLIND = "blind"
    SELF = "self"


def hidden_text(mode: RollMode, roller: str, roller_is_gm: bool) -> str:
    """Return what a viewer who may not see a roll learns of it, in table words."""
    if mode is RollMode.BLIND:
        # A GM's blind roll names no one: not even which GM, for whom, or why.
        return "the GM rolled blind" if roller_is_gm else f"{roller} rolled blind"
    if mode is RollMode.SELF:
        return f"{roller} rolled for their own eyes"
    return f"{roller} rolled privately"

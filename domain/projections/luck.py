"""Each player's rated checks in the order they resolved: the luck series of one session.

The statistics projection keeps sums; a chart of luck over the session needs the steps.
This fold reads one session's events, notes the reroll allowance each roll could use
when it was requested and the order in which rolls resolved, and then rates each
resolved check with the same exact odds as the statistics (``roll_facts``). A voided
roll is left out, and so is a blind roll the viewer may not see.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from diceledger.domain.projections.facts import SCALE, allowance_for, roll_facts
from diceledger.domain.projections.logged import Logged
from diceledger.domain.session import events as ev
from diceledger.domain.session.state import SessionState, evolve
from diceledger.domain.session.visibility import may_see


@dataclass(frozen=True, slots=True)
class LuckStep:
    """One rated check of a player, in the order rolled: its chance and whether it won."""

    roll_id: int
    chance: float  # the exact probability of success before rolling, 0 to 1
    won: bool


def luck_steps(
    logged: Iterable[Logged], hidden: frozenset[int] = frozenset()
) -> dict[str, list[LuckStep]]:
    """Return player -> their rated checks in the order they resolved."""
    state = SessionState()
    allowances: dict[int, int] = {}
    resolved: list[int] = []
    for item in logged:
        event = item.event
        if isinstance(event, ev.RollRequested):
            allowances[event.roll_id] = allowance_for(state, event)
        evolve(state, item.version, event)
        if isinstance(event, ev.RollResolved | ev.CheckResolved):
            resolved.append(event.roll_id)
    series: dict[str, list[LuckStep]] = {name: [] for name in state.members}
    for roll_id in resolved:
        roll = state.rolls[roll_id]
        if roll.voided or roll_id in hidden:
            continue
        for player, metrics in roll_facts(state, roll, allowances.get(roll_id, 0)).items():
            # A roll the player may not see (a GM's blind roll for them) is no part of
            # their luck, whoever views it.
            if metrics["luck.rated"] and may_see(state, roll, player):
                chance = float(Fraction(metrics["luck.expected_e12"], SCALE))
                series[player].append(LuckStep(roll_id, chance, bool(metrics["luck.observed"])))
    return series

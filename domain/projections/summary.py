"""A session's standing at one moment (for as-of replay): members, open rolls, totals."""

from __future__ import annotations

from diceledger.domain.errors import DiceledgerError
from diceledger.domain.json import JsonObject
from diceledger.domain.projections.facts import CHECKS
from diceledger.domain.session import events as ev
from diceledger.domain.session.opposed import waiting_side
from diceledger.domain.session.state import AWAITING, Roll, SessionState
from diceledger.domain.session.views import replay_total


def _total_so_far(roll: Roll) -> int | None:
    """Return a waiting roll's total, or None if the moment falls before all its dice."""
    try:
        return replay_total(roll)
    except DiceledgerError:
        return None  # a position inside the command: the request is there, not yet its dice


def _waits_for_rerolls(state: SessionState, roll: Roll) -> bool:
    """Tell whether someone may still reroll the roll. Between a roll's dice and its result
    (events of one command) a roll without rerolls is unresolved, yet waits for nobody."""
    if _total_so_far(roll) is None:
        return False
    if roll.request.opponent is not None:
        return waiting_side(state, roll) is not None
    action = state.actions.get(roll.request.action_id)
    return action is not None and action.remaining > 0 and action.covers(roll.request.kind)


def standing(state: SessionState, hidden: frozenset[int] = frozenset()) -> JsonObject:
    """Return members, rolls still open, open disputes and each player's totals so far."""
    visible = [roll for roll in state.rolls.values() if roll.roll_id not in hidden]
    totals: dict[str, dict[str, int]] = {
        name: {"rolls": 0, "checks_made": 0, "checks_won": 0, "sum_of_totals": 0}
        for name in state.members
    }
    for roll in visible:
        resolution = roll.resolution
        row = totals.get(roll.request.on_behalf_of)
        if row is None or resolution is None or roll.voided:
            continue
        row["rolls"] += 1
        row["sum_of_totals"] += resolution.total
        if roll.request.kind in CHECKS:
            row["checks_made"] += 1
            won = (
                resolution.winner == roll.request.on_behalf_of
                if isinstance(resolution, ev.CheckResolved) and resolution.winner
                else bool(getattr(resolution, "success", False))
            )
            row["checks_won"] += int(won)
    return {
        "session_id": state.session_id,
        "version": state.version,
        "ended": state.ended,
        "members": [{"name": m.name, "role": m.role} for m in state.members.values()],
        "open_rolls": [
            {
                "roll_id": roll.roll_id,
                "player": roll.request.on_behalf_of,
                "kind": roll.request.kind,
                "total_so_far": _total_so_far(roll),
                "waits_for_rerolls": _waits_for_rerolls(state, roll),
            }
            for roll in visible
            if roll.status == AWAITING
        ],
        "open_disputes": [roll.roll_id for roll in visible if roll.open_dispute],
        "hidden_rolls": len(state.rolls) - len(visible),
        "totals": {name: {**row} for name, row in totals.items()},
    }

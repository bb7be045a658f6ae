"""Where an opposed check stands: its current round, each side's allowance, whose turn it is.

Each side of an opposed check may hold rerolls (R6, R11). The request's side spends its
action's allowance, like any roll; the other side spends its own, granted with the check
(``RollRequested.opponent_rerolls_granted``). In every round the sides decide in a fixed
order, the request's side first, then the other: a side with allowance left waits until it
has rerolled it all or accepted. What a side leaves unspent carries into the next round.
docs/rules.md ("Rerolls in an opposed check") gives the reasons.
"""

from __future__ import annotations

from dataclasses import dataclass

from diceledger.domain.dice.engine import RollState
from diceledger.domain.dice.request import RerollScope, RollKind
from diceledger.domain.session import events as ev
from diceledger.domain.session.rolls import rolled_side, rolls_own_dice, rounds_of
from diceledger.domain.session.state import Roll, SessionState

SIDES = (0, 1)


def side_name(request: ev.RollRequested, side: int) -> str:
    """Return the name a side rolls for."""
    assert request.opponent is not None
    return request.side.name if side == 0 else request.opponent.name


def side_roller(session: SessionState, request: ev.RollRequested, side: int) -> str | None:
    """Return the member who rerolls and accepts for a side; None for an NPC (any GM)."""
    name = side_name(request, side)
    # An NPC when requested stays one: its side is any GM's, whoever joins later.
    if name not in session.members or name in session.npc_names:
        return None
    return request.roller if side == 0 else name


def may_decide(session: SessionState, request: ev.RollRequested, side: int, actor: str) -> bool:
    """Tell whether ``actor`` may reroll or accept for one side of an opposed check."""
    roller = side_roller(session, request, side)
    return actor == roller if roller is not None else session.is_gm(actor)


def typed_by(session: SessionState, roll: Roll, side: int, nonce: int | None) -> str:
    """Return who typed in a manual die of a roll's side, drawn under ``nonce``.

    A command's typed faces go only to the sides its actor decides (R6), so the request's
    faces are its roller's, and any later command's are the side's own roller's; an NPC's
    side is decided by any GM. A member never stops being a GM, so while the session has
    one GM, they typed every NPC's die; with several, the session state does not say which.
    """
    request = roll.request
    if request.opponent is None or nonce == request.nonce:
        return request.roller
    roller = side_roller(session, request, side)
    if roller is not None:
        return roller
    gms = [member.name for member in session.members.values() if member.is_gm]
    return gms[0] if len(gms) == 1 else "a GM"


def side_scope(session: SessionState, request: ev.RollRequested, side: int) -> RerollScope:
    """Return the scope of a side's allowance: its action's, or Effect for the other side."""
    return session.actions[request.action_id].scope if side == 0 else RerollScope.EFFECT


def rerolls_left(session: SessionState, roll: Roll, side: int) -> int:
    """Return the rerolls a side of an opposed check may still spend on it."""
    request = roll.request
    if request.opponent_rerolls_granted is None:
        return 0  # a check of version 1: neither side rerolled then
    if side == 1:
        return request.opponent_rerolls_granted - roll.rerolls_of(1)
    action = session.actions[request.action_id]
    return action.remaining if action.covers(RollKind.OPPOSED) else 0


@dataclass
class Standing:
    """The current round of an opposed check: each side's dice, allowance, and turn taken.

    A side's dice are None while its member has yet to roll them (``own``: the other side
    rolls its own dice in every round). Decisions work on a copy of this
    (``decide_opposed``); the session state is never changed but by the events they return.
    """

    round: int
    sides: list[RollState | None]
    left: list[int]
    accepted: list[bool]
    own: bool = False

    @property
    def turn(self) -> int | None:
        """Return the side that must roll, reroll or accept now, or None when neither waits.

        Both sides' dice come first (R14): a side rerolls knowing what it must beat.
        """
        for side in SIDES:
            if self.sides[side] is None:
                return side
        for side in SIDES:
            if not self.accepted[side] and self.left[side] > 0:
                return side
        return None

    @property
    def awaits_dice(self) -> bool:
        """Tell whether the side whose turn it is has yet to roll its dice."""
        side = self.turn
        return side is not None and self.sides[side] is None

    def rolled(self, side: int) -> RollState:
        """Return a side's dice, once rolled."""
        state = self.sides[side]
        assert state is not None, "a side is compared or rerolled only once it has rolled"
        return state


def standing(session: SessionState, roll: Roll) -> Standing:
    """Return where an opposed check stands after its events so far."""
    number = rounds_of(roll)
    accepted = [any((a.side, a.round) == (side, number) for a in roll.accepts) for side in SIDES]
    own = rolls_own_dice(roll)
    return Standing(
        number,
        [rolled_side(roll, side, number, own) for side in SIDES],
        [rerolls_left(session, roll, side) for side in SIDES],
        accepted,
        own,
    )


def open_standing(session: SessionState, roll: Roll) -> Standing | None:
    """Return where an unresolved opposed check stands; None for any other roll."""
    if roll.resolution is not None or roll.request.opponent is None:
        return None
    return standing(session, roll)


def waiting_side(session: SessionState, roll: Roll) -> int | None:
    """Return the side an unresolved opposed check waits for, or None."""
    check = open_standing(session, roll)
    return None if check is None else check.turn


def waiting_on_action(session: SessionState, action_id: str, besides: int = 0) -> Roll | None:
    """Return an opposed check of the action waiting for its request's side, if any.

    While one waits, the action's rerolls are spent on it first: spending them elsewhere
    could end its turn from outside, with no command of its own to roll a tied round.
    """
    for roll in session.rolls.values():
        request = roll.request
        if roll.roll_id == besides or request.opponent is None or roll.resolution is not None:
            continue
        if request.action_id == action_id and waiting_side(session, roll) == 0:
            return roll
    return None

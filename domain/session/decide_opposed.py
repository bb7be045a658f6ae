"""Decide an opposed check: its request, each side's rerolls and accepts, and its end (R6).

A round rolls both sides (the request's side first). Then each side holding rerolls takes
its turn, the request's side first: it rerolls until its allowance is spent, or accepts.
When neither side waits, the round is compared; a tie rolls a fresh round in the same
command, and the allowances left carry into it (docs/rules.md, "Rerolls in an opposed
check"). Every command that draws dice draws them under one nonce: the request's, a
reroll's, or the next one for an accept (or the end) whose round then ties. A check whose
other side rolls its own dice waits for that side's member in every round (``roll_side``)
before either side's turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from diceledger.domain.dice.checks import MAX_OPPOSED_ROUNDS
from diceledger.domain.dice.engine import reroll as reroll_dice
from diceledger.domain.dice.engine import start
from diceledger.domain.dice.request import RollKind, RollSpec
from diceledger.domain.dice.sources import DiceSource
from diceledger.domain.errors import (
    ManualFacesError,
    PermissionDeniedError,
    RerollError,
    RollError,
    TurnPassedError,
)
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import editions
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide_rolls import (
    MAX_REROLLS,
    allowance,
    check_npc_names,
    check_salt,
    check_texts,
    finish_manual,
    new_request,
    refuse_unseen_rerolls,
    refuse_while_opposed_waits,
    source_for,
)
from diceledger.domain.session.guards import require_gm, require_member, require_open
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.opposed import (
    SIDES,
    Standing,
    may_decide,
    side_name,
    side_roller,
    standing,
)
from diceledger.domain.session.references import refuse_choices_for_another_member, resolve_sides
from diceledger.domain.session.rolls import dice_events, spec_of
from diceledger.domain.session.state import Roll, SessionState


class CommandDice:
    """The dice a command draws for fresh rounds: made when first needed, then kept.

    One command draws all its dice under one nonce, however many tied rounds it rolls; a
    command whose round never ties makes no seeded source and takes no nonce. Faces typed
    in go only to the sides ``typist_sides`` names, the sides the typist decides (R6): every
    other side takes the seeded dice of the same nonce, so nobody types another's dice.
    While the server rolls a side, the typed faces give only the first round the command
    draws: how many faces a command takes never depends on the server's dice, so a refusal
    for too few or too many faces tells nothing of them.
    """

    def __init__(
        self,
        make: Callable[[], tuple[DiceSource, int]],
        typed: DiceSource | None = None,
        typist_sides: frozenset[int] = frozenset(),
    ) -> None:
        self._make = make
        self._made: tuple[DiceSource, int] | None = None
        self._typed = typed
        self._typist_sides = typist_sides
        self.rounds = 0  # the rounds this command has drawn

    def __call__(self) -> tuple[DiceSource, int]:
        """Return the command's seeded source and its nonce."""
        if self._made is None:
            self._made = self._make()
        return self._made

    def for_side(self, side: int) -> tuple[DiceSource, int]:
        """Return the source of one side's dice in the command's current round, and its nonce."""
        seeded, nonce = self()
        typed_round = self.rounds == 1 or self._typist_sides == frozenset(SIDES)
        if self._typed is not None and side in self._typist_sides and typed_round:
            return self._typed, nonce
        return seeded, nonce


def _typist_sides(state: SessionState, request: ev.RollRequested, actor: str) -> frozenset[int]:
    """Return the sides whose dice ``actor`` may type in: those they decide (R6).

    Before the second edition of the rules, a command's faces gave both sides' dice.
    """
    if request.rules_edition < editions.SIDES_OWN:
        return frozenset(SIDES)
    return frozenset(side for side in SIDES if may_decide(state, request, side, actor))


def _specs(request: ev.RollRequested) -> tuple[RollSpec, RollSpec]:
    assert request.opponent is not None
    return spec_of(request, request.side), spec_of(request, request.opponent)


def _roll_round(
    request: ev.RollRequested, check: Standing, dice: CommandDice, epoch: int
) -> list[ev.Event]:
    """Roll both sides of the next round: each side's dice, then its chains (R14).

    A side that rolls its own dice is left to its member (``RollSide``).
    """
    check.round += 1
    dice.rounds += 1
    check.accepted = [False, False]
    check.sides = [None, None]
    events: list[ev.Event] = []
    for side, spec in enumerate(_specs(request)):
        if side == 1 and check.own:
            continue
        source, nonce = dice.for_side(side)
        events += _roll_one(request, check, side, spec, source, nonce, epoch)
    return events


def _roll_one(
    request: ev.RollRequested,
    check: Standing,
    side: int,
    spec: RollSpec,
    source: DiceSource,
    nonce: int,
    epoch: int,
) -> list[ev.Event]:
    """Roll one side's dice in the check's current round, with their chains (R14)."""
    rolled = start(spec, source)
    check.sides[side] = rolled
    return dice_events(request.roll_id, rolled.dice, epoch, nonce, side, check.round)


def _settle(
    request: ev.RollRequested, check: Standing, dice: CommandDice, epoch: int
) -> list[ev.Event]:
    """Compare the round once neither side waits; a tie rolls the next round (R6)."""
    events: list[ev.Event] = []
    while check.turn is None:
        first, second = (check.rolled(side).total for side in SIDES)
        if first != second:
            events.append(_resolved(request, check))
            return events
        events.append(ev.OpposedCheckTied(request.roll_id, check.round, first))
        if check.round >= MAX_OPPOSED_ROUNDS:
            raise RollError(
                f"the opposed check tied {MAX_OPPOSED_ROUNDS} rounds in a row; "
                "the dice source looks broken"
            )
        events += _roll_round(request, check, dice, epoch)
    return events


def _resolved(request: ev.RollRequested, check: Standing) -> ev.CheckResolved:
    first, second = (check.rolled(side).total for side in SIDES)
    winner = 0 if first > second else 1
    name, other = side_name(request, 0), side_name(request, 1)
    return ev.CheckResolved(
        roll_id=request.roll_id,
        total=first,
        target=None,
        success=winner == 0,
        margin=first - second,
        detail=f"{name} {first} vs {other} {second}",
        opponent_total=second,
        winner=side_name(request, winner),
        rounds=check.round,
    )


def _allowances(
    state: SessionState, command: cmd.RequestOpposed, roll_id: int, ctx: Context
) -> tuple[int, str, list[int]]:
    """Return what the request grants its action, the scope, and each side's rerolls."""
    if command.opponent_rerolls is None:
        if command.rerolls:
            raise RerollError("a check without rerolls on either side grants none")
        return 0, command.reroll_scope.value, [0, 0]
    if not 0 <= command.opponent_rerolls <= MAX_REROLLS:
        raise RerollError(
            f"a reroll allowance is 0 to {MAX_REROLLS}, not {command.opponent_rerolls}"
        )
    action_id, granted, scope, usable = allowance(state, command, roll_id, RollKind.OPPOSED)
    action = state.actions.get(action_id)
    if action is not None and action.owner != ctx.actor:
        raise PermissionDeniedError(f"action '{action_id}' belongs to {action.owner}")
    if usable:
        refuse_while_opposed_waits(state, action_id)
    refuse_unseen_rerolls(state, ctx, command.mode, usable)
    opponent = command.opponent.name
    member = state.members.get(opponent)
    # A roll not public is hidden from an opponent who is neither its roller nor a GM.
    if (
        command.mode is not RollMode.PUBLIC
        and command.opponent_rerolls
        and member is not None
        and not member.is_gm
    ):
        raise RerollError(f"{opponent} cannot reroll in a {command.mode} roll they cannot see")
    return granted, scope, [usable, command.opponent_rerolls]


def request_opposed(
    state: SessionState, command: cmd.RequestOpposed, ctx: Context
) -> list[ev.Event]:
    """Roll both sides of an opposed check; compare, or wait for a side's rerolls (R6)."""
    require_open(state)
    require_member(state, ctx.actor)
    side, opponent = command.side, command.opponent
    if side.name != ctx.actor:
        require_gm(state, ctx.actor, "roll for someone else or an NPC")
    if opponent.name not in state.members:
        require_gm(state, ctx.actor, f"roll for the NPC '{opponent.name}'")
    if opponent.name == side.name:
        raise RollError("an opposed check needs two different sides")
    check_texts(command, [side, opponent])
    check_npc_names(state, ctx, [side, opponent])
    if command.rules_edition >= editions.SIDES_OWN:
        refuse_choices_for_another_member(state, opponent, ctx.actor)
    resolved = resolve_sides(state, (side, opponent))
    check_salt(state, ctx, command.salt, (side.name, opponent.name))
    roll_id = len(state.rolls) + 1
    granted, scope, left = _allowances(state, command, roll_id, ctx)
    request = new_request(
        state,
        ctx,
        command,
        kind=RollKind.OPPOSED,
        side=resolved.sides[0],
        action_id=command.action_id or f"roll-{roll_id}",
        opponent=resolved.sides[1],
        rerolls_granted=granted,
        reroll_scope=scope,
        opponent_rerolls_granted=command.opponent_rerolls,
        references=resolved.references,
        asked=resolved.asked,
    )
    if command.opponent_rolls:
        _check_own_dice(state, command, request)
    typed = None
    if command.faces is not None:
        typed = source_for(state, ctx, command.faces, command.salt)
    seeded = source_for(state, ctx, None, command.salt)
    typist = _typist_sides(state, request, ctx.actor)
    dice = CommandDice(lambda: (seeded, request.nonce), typed, typist)
    check = Standing(0, [None, None], left, [False, False], command.opponent_rolls)
    events: list[ev.Event] = [request, *_roll_round(request, check, dice, request.epoch)]
    events += _settle(request, check, dice, request.epoch)
    if typed is not None:
        _finish_typed(typed, request, typist)
    return events


def _check_own_dice(
    state: SessionState, command: cmd.RequestOpposed, request: ev.RollRequested
) -> None:
    """Refuse to leave the other side's dice to anyone but a member who can roll them."""
    name = command.opponent.name
    member = state.members.get(name)
    if member is None or name in state.npc_names:
        raise RollError(f"{name} is an NPC: its dice are rolled with the request, not later")
    if command.rules_edition < editions.SIDES_OWN:
        raise RollError("a side rolls its own dice only under the second edition of the rules")
    # A gm or blind roll is shown to the GMs; a self roll to its roller alone (docs/rules.md).
    hidden = command.mode is RollMode.SELF or not (command.mode is RollMode.PUBLIC or member.is_gm)
    if hidden:
        raise RollError(f"{name} cannot roll their side of a {command.mode} roll they cannot see")
    assert request.opponent is not None
    if not spec_of(request, request.opponent).plan.sides:
        raise RollError(f"{name}'s side, {request.opponent.expression}, has no dice to roll")


def _finish_typed(typed: DiceSource, request: ev.RollRequested, typist: frozenset[int]) -> None:
    """Refuse typed-in faces left over, naming a side the typist may not type for."""
    others = [side_name(request, side) for side in SIDES if side not in typist]
    try:
        finish_manual(typed)
    except ManualFacesError as error:
        if not others:
            raise
        raise ManualFacesError(
            f"{error}: faces typed in are only for your own side, in one round; "
            f"{others[0]}'s dice are theirs, rolled by the server here, as is any round after "
            "a tie"
        ) from error


def _turn(
    state: SessionState, roll: Roll, check: Standing, actor: str, verb: str, seen: cmd.Turn | None
) -> int:
    """Return the side whose turn it is, if ``actor`` may take it; refuse anyone else.

    A command that names the turn its roller saw is refused once that turn has passed:
    decided under the session's lock, two commands sent for one turn cannot both take it.
    """
    side = check.turn
    if side is None:
        raise RerollError(f"roll {roll.roll_id} is already resolved")
    request = roll.request
    if seen is not None and seen != cmd.Turn(side, check.round):
        raise TurnPassedError(
            f"roll {roll.roll_id} has moved on: it waits for {side_name(request, side)}'s "
            f"side in round {check.round} now"
        )
    if verb == "roll" and not check.awaits_dice:
        raise RollError(
            f"roll {roll.roll_id} waits for {side_name(request, side)}'s rerolls, not their "
            "dice: every side of this round is rolled"
        )
    if verb != "roll" and check.awaits_dice:
        raise RerollError(
            f"roll {roll.roll_id} waits for {side_name(request, side)} to roll their dice "
            f"first (round {check.round})"
        )
    if not may_decide(state, request, side, actor):
        who = side_roller(state, request, side) or "a GM"
        nobody = "rolls" if verb == "roll" else "rerolls"
        raise PermissionDeniedError(
            f"roll {roll.roll_id} waits for {side_name(request, side)}'s side; only {who} "
            f"may {verb} it, and nobody {nobody} the other side's dice"
        )
    return side


def _later_dice(
    state: SessionState, ctx: Context, roll: Roll, faces: tuple[int, ...] | None
) -> tuple[CommandDice, DiceSource | None]:
    """Return the dice of a fresh round an accept may roll, and its typed-in source if any."""
    request, nonce = roll.request, state.next_nonce
    typed = None
    if faces is not None:
        typed = source_for(state, ctx, faces, request.salt, request.client_seed)
    # Seeded dice are made only if the round ties: an accept that rolls none takes no nonce.
    return CommandDice(
        lambda: (source_for(state, ctx, None, request.salt, request.client_seed), nonce),
        typed,
        _typist_sides(state, request, ctx.actor),
    ), typed


def reroll_opposed(
    state: SessionState, roll: Roll, command: cmd.Reroll, ctx: Context
) -> tuple[list[ev.Event], bool]:
    """Spend rerolls of the side whose turn it is; say whether its action ran out (R11)."""
    check = standing(state, roll)
    side = _turn(state, roll, check, ctx.actor, "reroll", command.turn)
    if not command.dice:
        raise RerollError("name at least one die to reroll")
    request, nonce, epoch = roll.request, state.next_nonce, state.epoch.number
    source = source_for(state, ctx, command.faces, request.salt, request.client_seed)
    current = replace(check.rolled(side), rerolls_left=check.left[side])
    rolled = reroll_dice(current, command.dice, source)
    events = dice_events(
        roll.roll_id, rolled.dice[len(current.dice) :], epoch, nonce, side, check.round
    )
    check.sides[side], check.left[side] = rolled, rolled.rerolls_left
    typist = _typist_sides(state, request, ctx.actor)
    events += _settle_after(state, ctx, request, check, (source, nonce), command.faces, typist)
    return events, side == 0 and rolled.rerolls_left == 0


def _settle_after(
    state: SessionState,
    ctx: Context,
    request: ev.RollRequested,
    check: Standing,
    drawn: tuple[DiceSource, int],
    faces: tuple[int, ...] | None,
    typist: frozenset[int],
) -> list[ev.Event]:
    """Settle after a command drew from ``drawn`` (its source and nonce); refuse faces left.

    A tie's fresh round goes on with the same seeded dice, or, when faces were typed in,
    takes them for the typist's sides and the seeded dice of that nonce for the others.
    """
    source, nonce = drawn
    if faces is None:
        dice = CommandDice(lambda: drawn)
    else:
        seeded = source_for(state, ctx, None, request.salt, request.client_seed)
        dice = CommandDice(lambda: (seeded, nonce), source, typist)
    events = _settle(request, check, dice, state.epoch.number)
    if faces is not None:
        _finish_typed(source, request, typist)
    return events


def roll_side(
    state: SessionState, roll: Roll, command: cmd.RollSide, ctx: Context
) -> list[ev.Event]:
    """Roll the dice of the side whose member rolls their own; compare if nobody waits (R6).

    Typed-in faces give that side's dice of this round; a tie this command rolls draws the
    request's side from the server's dice, and leaves the other side to its member again.
    """
    check = standing(state, roll)
    side = _turn(state, roll, check, ctx.actor, "roll", command.turn)
    request, nonce, epoch = roll.request, state.next_nonce, state.epoch.number
    source = source_for(state, ctx, command.faces, request.salt, request.client_seed)
    events = _roll_one(request, check, side, _specs(request)[side], source, nonce, epoch)
    # The member types only their own side; a fresh round leaves it to them again.
    own = frozenset({side})
    return events + _settle_after(state, ctx, request, check, (source, nonce), command.faces, own)


def accept_opposed(
    state: SessionState, roll: Roll, command: cmd.Accept, ctx: Context
) -> list[ev.Event]:
    """Close the turn of the side whose turn it is; compare if the other does not wait."""
    check = standing(state, roll)
    side = _turn(state, roll, check, ctx.actor, "accept", command.turn)
    events: list[ev.Event] = [
        ev.RollAccepted(roll.roll_id, ctx.actor, check.left[side], side, check.round)
    ]
    check.accepted[side] = True
    dice, typed = _later_dice(state, ctx, roll, command.faces)
    events += _settle(roll.request, check, dice, state.epoch.number)
    if typed is not None:
        _finish_typed(typed, roll.request, _typist_sides(state, roll.request, ctx.actor))
    return events


def close_at_end(
    state: SessionState, roll: Roll, ctx: Context, next_nonce: Callable[[], int]
) -> list[ev.Event]:
    """Accept every side still to decide (0 left: the end gives allowances up), then settle.

    A tie then rolls fresh rounds from the seed under the next nonce, with no rerolls.
    """
    check = standing(state, roll)
    request, epoch = roll.request, state.epoch.number

    def seeded() -> tuple[DiceSource, int]:
        nonce = next_nonce()
        return ctx.dice(nonce, request.client_seed, request.salt), nonce

    dice = CommandDice(seeded)
    events: list[ev.Event] = []
    # A side whose member has yet to roll gets the server's dice; so does every fresh round.
    check.own = False
    for unrolled, spec in enumerate(_specs(request)):
        if check.sides[unrolled] is None:
            source, nonce = dice.for_side(unrolled)
            events += _roll_one(request, check, unrolled, spec, source, nonce, epoch)
    while (side := check.turn) is not None:
        events.append(ev.RollAccepted(roll.roll_id, ctx.actor, 0, side, check.round))
        check.accepted[side] = True
    check.left = [0, 0]
    return events + _settle(request, check, dice, epoch)

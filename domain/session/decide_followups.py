"""Decide what follows a roll: opposed rounds, rerolls, acceptance, reveals."""

from __future__ import annotations

from dataclasses import replace

from diceledger.domain.dice.checks import opposed
from diceledger.domain.dice.engine import reroll
from diceledger.domain.dice.request import RollKind
from diceledger.domain.errors import PermissionDeniedError, RerollError, RollError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide_rolls import (
    check_salt,
    check_texts,
    finish_manual,
    new_request,
    resolution,
    source_for,
)
from diceledger.domain.session.guards import find_roll, require_gm, require_member, require_open
from diceledger.domain.session.rolls import dice_events, replay_state, spec_of
from diceledger.domain.session.state import AWAITING, Roll, SessionState


def request_opposed(
    state: SessionState, command: cmd.RequestOpposed, ctx: Context
) -> list[ev.Event]:
    """Roll both sides of an opposed check, a new round for every tie (R6)."""
    require_open(state)
    require_member(state, ctx.actor)
    side, opponent = command.side, command.opponent
    if side.name != ctx.actor:
        require_gm(state, ctx.actor, "roll for someone else or an NPC")
    if opponent.name not in state.members:
        require_gm(state, ctx.actor, f"roll for the NPC '{opponent.name}'")
    if opponent.name == side.name:
        raise RollError("an opposed check needs two different sides")
    if command.blind:
        require_gm(state, ctx.actor, "roll blind")
    check_texts(command, [side, opponent])
    check_salt(state, ctx, command.salt, (side.name, opponent.name))
    roll_id = len(state.rolls) + 1
    request = new_request(
        state,
        ctx,
        command,
        kind=RollKind.OPPOSED,
        side=side,
        action_id=command.action_id or f"roll-{roll_id}",
        opponent=opponent,
    )
    source = source_for(state, ctx, command.faces, command.salt)
    rounds = opposed(spec_of(request, side), spec_of(request, opponent), source)
    finish_manual(source)
    events: list[ev.Event] = [request]
    for number, round_ in enumerate(rounds, start=1):
        for index, rolled in enumerate((round_.first, round_.second)):
            events += dice_events(roll_id, rolled.dice, request.epoch, request.nonce, index, number)
        if round_.winner is None:
            events.append(ev.OpposedCheckTied(roll_id, number, round_.first.total))
    last = rounds[-1]
    winner = side.name if last.winner == 0 else opponent.name
    events.append(
        ev.CheckResolved(
            roll_id=roll_id,
            total=last.first.total,
            target=None,
            success=last.winner == 0,
            margin=last.first.total - last.second.total,
            detail=f"{side.name} {last.first.total} vs {opponent.name} {last.second.total}",
            opponent_total=last.second.total,
            winner=winner,
            rounds=len(rounds),
        )
    )
    return events


def _open_roll(state: SessionState, roll_id: int, ctx: Context, verb: str) -> Roll:
    require_open(state)
    require_member(state, ctx.actor)
    roll = find_roll(state, roll_id, ctx.actor)
    if roll.request.roller != ctx.actor:
        raise PermissionDeniedError(
            f"only {roll.request.roller}, who rolled it, may {verb} roll {roll_id}"
        )
    if roll.status != AWAITING:
        raise RerollError(f"roll {roll_id} is already resolved")
    return roll


def reroll_dice(state: SessionState, command: cmd.Reroll, ctx: Context) -> list[ev.Event]:
    """Spend rerolls of the roll's action on the chosen dice (R11)."""
    roll = _open_roll(state, command.roll_id, ctx, "reroll")
    action = state.actions[roll.request.action_id]
    if not command.dice:
        raise RerollError("name at least one die to reroll")
    if not action.covers(roll.request.kind):
        raise RerollError(
            f"a {action.scope.value} reroll cannot be spent on a {roll.request.kind} roll"
        )
    current = replace(replay_state(roll), rerolls_left=action.remaining)
    nonce = state.next_nonce
    source = source_for(state, ctx, command.faces, roll.request.salt, roll.request.client_seed)
    rolled = reroll(current, command.dice, source)
    finish_manual(source)
    events = dice_events(roll.roll_id, rolled.dice[len(current.dice) :], state.epoch.number, nonce)
    if rolled.rerolls_left == 0:
        events.append(resolution(roll.request, rolled))
        events += _close_action(state, roll)
    return events


def _close_action(state: SessionState, spent: Roll) -> list[ev.Event]:
    # The action's last reroll is gone: its other waiting rolls resolve as they stand.
    action_id = spent.request.action_id
    return [
        resolution(other.request, replay_state(other))
        for other in state.rolls.values()
        if other is not spent and other.request.action_id == action_id and other.status == AWAITING
    ]


def accept_roll(state: SessionState, command: cmd.Accept, ctx: Context) -> list[ev.Event]:
    """Close a waiting roll as it stands; the action keeps its allowance for other rolls."""
    roll = _open_roll(state, command.roll_id, ctx, "accept")
    remaining = state.actions[roll.request.action_id].remaining
    return [
        ev.RollAccepted(roll.roll_id, ctx.actor, remaining),
        resolution(roll.request, replay_state(roll)),
    ]


def reveal_roll(state: SessionState, command: cmd.RevealRoll, ctx: Context) -> list[ev.Event]:
    """Show a blind roll to the players."""
    require_open(state)
    require_gm(state, ctx.actor, "reveal a blind roll")
    roll = find_roll(state, command.roll_id, ctx.actor)
    if not roll.hidden:
        raise RollError(f"roll {command.roll_id} is not a hidden blind roll")
    return [ev.RollRevealed(roll.roll_id, ctx.actor)]

"""Decide what follows a roll: rerolls, acceptance, reveals (opposed checks: decide_opposed)."""

from __future__ import annotations

from dataclasses import replace

from diceledger.domain.dice.engine import reroll
from diceledger.domain.errors import PermissionDeniedError, RerollError, RollError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide_opposed import accept_opposed, reroll_opposed, roll_side
from diceledger.domain.session.decide_rolls import (
    finish_manual,
    refuse_while_opposed_waits,
    resolution,
    source_for,
)
from diceledger.domain.session.guards import find_roll, require_gm, require_member, require_open
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.rolls import dice_events, replay_state
from diceledger.domain.session.state import AWAITING, Roll, SessionState


def _found(state: SessionState, roll_id: int, ctx: Context) -> Roll:
    require_open(state)
    require_member(state, ctx.actor)
    return find_roll(state, roll_id, ctx.actor)


def _waiting(roll: Roll) -> None:
    if roll.status != AWAITING:
        raise RerollError(f"roll {roll.roll_id} is already resolved")


def _open_roll(state: SessionState, roll_id: int, ctx: Context, verb: str) -> Roll:
    """Return a waiting single-sided roll its roller acts on; an opposed check as it is."""
    roll = _found(state, roll_id, ctx)
    if roll.request.opponent is not None:
        _waiting(roll)  # whose turn it is, and who takes it, is decide_opposed's
        return roll
    if roll.request.roller != ctx.actor:
        raise PermissionDeniedError(
            f"only {roll.request.roller}, who rolled it, may {verb} roll {roll_id}"
        )
    _waiting(roll)
    return roll


def reroll_dice(state: SessionState, command: cmd.Reroll, ctx: Context) -> list[ev.Event]:
    """Spend rerolls of the roll's action (or its side's) on the chosen dice (R11)."""
    roll = _open_roll(state, command.roll_id, ctx, "reroll")
    if roll.request.opponent is not None:
        events, action_spent = reroll_opposed(state, roll, command, ctx)
        return events + (_close_action(state, roll) if action_spent else [])
    action = state.actions[roll.request.action_id]
    if not command.dice:
        raise RerollError("name at least one die to reroll")
    if not action.covers(roll.request.kind):
        raise RerollError(
            f"a {action.scope.value} reroll cannot be spent on a {roll.request.kind} roll"
        )
    refuse_while_opposed_waits(state, action.action_id, roll.roll_id)
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


def roll_own_side(state: SessionState, command: cmd.RollSide, ctx: Context) -> list[ev.Event]:
    """Roll one's own side of an opposed check that waits for its dice (R6)."""
    roll = _found(state, command.roll_id, ctx)
    if roll.request.opponent is None:
        raise RollError(f"roll {command.roll_id} is not an opposed check: it has no sides to roll")
    _waiting(roll)
    return roll_side(state, roll, command, ctx)


def _close_action(state: SessionState, spent: Roll) -> list[ev.Event]:
    # The action's last reroll is gone: its other waiting rolls resolve as they stand. An
    # opposed check of the action waits only for its other side here (no reroll of the
    # action is taken while its own side waits), which is not the action's to close.
    action_id = spent.request.action_id
    return [
        resolution(other.request, replay_state(other))
        for other in state.rolls.values()
        if other is not spent
        and other.request.action_id == action_id
        and other.request.opponent is None
        and other.status == AWAITING
    ]


def accept_roll(state: SessionState, command: cmd.Accept, ctx: Context) -> list[ev.Event]:
    """Close a waiting roll as it stands; the action keeps its allowance for other rolls."""
    roll = _open_roll(state, command.roll_id, ctx, "accept")
    if roll.request.opponent is not None:
        return accept_opposed(state, roll, command, ctx)
    if command.faces is not None:
        raise RollError("an accept rolls no dice, except a fresh round of an opposed check")
    remaining = state.actions[roll.request.action_id].remaining
    return [
        ev.RollAccepted(roll.roll_id, ctx.actor, remaining),
        resolution(roll.request, replay_state(roll)),
    ]


def reveal_roll(state: SessionState, command: cmd.RevealRoll, ctx: Context) -> list[ev.Event]:
    """Show a hidden roll to everyone: a gm or blind roll by a GM, a self roll by its roller."""
    require_open(state)
    require_member(state, ctx.actor)
    own = state.rolls.get(command.roll_id)
    if own is None or own.mode is not RollMode.SELF or own.request.roller != ctx.actor:
        # A GM may not see, so not find, a self roll of someone else's.
        require_gm(state, ctx.actor, "reveal a gm or blind roll")
    roll = find_roll(state, command.roll_id, ctx.actor)
    if not roll.hidden:
        raise RollError(f"roll {command.roll_id} is not hidden: everyone sees it already")
    return [ev.RollRevealed(roll.roll_id, ctx.actor)]

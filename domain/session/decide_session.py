"""Decide the session's own commands: start, join, seeds, end, and disputes."""

from __future__ import annotations

from diceledger.domain.dice.sources import ALGORITHM, commitment
from diceledger.domain.errors import (
    CommandRefusedError,
    CorruptLogError,
    PermissionDeniedError,
    RollError,
)
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide_rolls import resolution
from diceledger.domain.session.guards import find_roll, require_gm, require_member, require_open
from diceledger.domain.session.rolls import replay_state
from diceledger.domain.session.state import AWAITING, GM, PLAYER, SessionState

MAX_TEXT = 500


def _check_name(name: str) -> None:
    if not name.strip() or len(name) > MAX_TEXT:
        raise CommandRefusedError(f"a member's name needs 1 to {MAX_TEXT} characters, not blank")


def start_session(state: SessionState, command: cmd.StartSession, ctx: Context) -> list[ev.Event]:
    """Open a session; its creator is its GM, and the first seed epoch is committed."""
    if state.started:
        raise CommandRefusedError(f"session '{command.session_id}' already exists")
    _check_name(ctx.actor)
    title = command.title.strip()
    if not title or len(title) > MAX_TEXT:
        raise CommandRefusedError(f"a title needs 1 to {MAX_TEXT} characters")
    return [
        ev.SessionStarted(command.session_id, title, ctx.actor, command.manual_dice_allowed),
        ev.PlayerJoined(ctx.actor, GM, "", ctx.actor),
        ev.SeedCommitted(1, command.commitment, ALGORITHM),
    ]


def join_session(state: SessionState, command: cmd.JoinSession, ctx: Context) -> list[ev.Event]:
    """Join oneself as a player; adding someone else or a co-GM is the GM's."""
    require_open(state)
    if (command.name != ctx.actor or command.as_gm) and not state.is_gm(ctx.actor):
        # Not require_gm: its "join first" hint would send a newcomer back to this command.
        raise PermissionDeniedError("only a GM may add someone else or a co-GM")
    _check_name(command.name)
    member = state.members.get(command.name)
    if member is not None and (member.is_gm or not command.as_gm):
        raise CommandRefusedError(f"{command.name} is already in session '{state.session_id}'")
    if len(command.client_seed) > MAX_TEXT:
        raise CommandRefusedError(f"a client seed may have at most {MAX_TEXT} characters")
    if command.client_seed and (command.name != ctx.actor or command.as_gm):
        # A client seed is entropy chosen after the commitment: only a player joining
        # themself, who cannot learn the seed, may choose it (never a GM, for anyone).
        raise PermissionDeniedError("only a player joining themself may choose a client seed")
    role = GM if command.as_gm else PLAYER
    # A promotion without a new client seed keeps the one the player joined with.
    client_seed = command.client_seed or (member.client_seed if member else "")
    return [ev.PlayerJoined(command.name, role, client_seed, ctx.actor)]


def _reveal(state: SessionState, seed: bytes, actor: str) -> ev.SeedRevealed:
    epoch = state.epoch
    if commitment(seed) != epoch.commitment:
        raise CorruptLogError(
            f"the vault's seed for epoch {epoch.number} does not match its commitment"
        )
    return ev.SeedRevealed(epoch.number, seed.hex(), actor)


def reveal_seed(state: SessionState, command: cmd.RevealSeed, ctx: Context) -> list[ev.Event]:
    """Publish the current seed (for a dispute) and commit to a fresh one for later rolls."""
    require_open(state)
    require_gm(state, ctx.actor, "reveal a seed")
    return [
        _reveal(state, command.seed, ctx.actor),
        ev.SeedCommitted(state.epoch.number + 1, command.next_commitment, ALGORITHM),
    ]


def end_session(state: SessionState, command: cmd.EndSession, ctx: Context) -> list[ev.Event]:
    """Close waiting rolls as they stand, reveal the last seed, and end the session."""
    require_open(state)
    require_gm(state, ctx.actor, "end the session")
    events: list[ev.Event] = []
    for roll in state.rolls.values():
        if roll.status == AWAITING:
            events.append(ev.RollAccepted(roll.roll_id, ctx.actor, 0))
            events.append(resolution(roll.request, replay_state(roll)))
    return [*events, _reveal(state, command.seed, ctx.actor), ev.SessionEnded(ctx.actor)]


def open_dispute(state: SessionState, command: cmd.OpenDispute, ctx: Context) -> list[ev.Event]:
    """Dispute a resolved roll one can see; one open dispute per roll at a time."""
    require_open(state)
    require_member(state, ctx.actor)
    roll = find_roll(state, command.roll_id, ctx.actor)
    reason = command.reason.strip()
    if not reason or len(reason) > MAX_TEXT:
        raise RollError(f"a dispute needs a reason of 1 to {MAX_TEXT} characters")
    if roll.status == AWAITING:
        raise RollError(f"roll {roll.roll_id} is still awaiting rerolls; dispute it once resolved")
    if roll.voided:
        raise RollError(f"roll {roll.roll_id} is already void")
    if roll.open_dispute:
        raise RollError(f"roll {roll.roll_id} already has an open dispute")
    return [ev.RollDisputed(roll.roll_id, ctx.actor, reason)]


def resolve_dispute(
    state: SessionState, command: cmd.ResolveDispute, ctx: Context
) -> list[ev.Event]:
    """Rule on an open dispute: uphold the roll or void it (nothing is edited or deleted)."""
    require_open(state)
    require_gm(state, ctx.actor, "resolve a dispute")
    roll = find_roll(state, command.roll_id, ctx.actor)
    if not roll.open_dispute:
        raise RollError(f"roll {roll.roll_id} has no open dispute")
    if command.outcome not in tuple(cmd.Ruling):
        raise RollError("a dispute is either upheld or voided")
    if command.note is not None and len(command.note) > MAX_TEXT:
        raise RollError(f"a note may have at most {MAX_TEXT} characters")
    ruling = cmd.Ruling(command.outcome).value
    return [ev.DisputeResolved(roll.roll_id, ctx.actor, ruling, command.note)]

"""Decide the session's own commands: start, join, seeds, end, and disputes."""

from __future__ import annotations

import itertools

from diceledger.domain.dice.sources import ALGORITHM, commitment
from diceledger.domain.errors import (
    CommandRefusedError,
    CorruptLogError,
    InvalidInputError,
    PermissionDeniedError,
    RollError,
)
from diceledger.domain.hashchain import format_timestamp
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide_opposed import close_at_end
from diceledger.domain.session.decide_rolls import resolution
from diceledger.domain.session.decide_sheets import carry_sheets
from diceledger.domain.session.guards import (
    find_roll,
    refuse_lookalike,
    require_disputable,
    require_gm,
    require_member,
    require_open,
)
from diceledger.domain.session.rolls import replay_state
from diceledger.domain.session.state import AWAITING, GM, PLAYER, SessionState, evolve
from diceledger.domain.session.text import (
    MAX_SESSION_ID,
    MAX_TEXT,
    check_name,
    check_optional,
    check_text,
    normalize_name,
)

MAX_DISPUTE_WINDOW = 365 * 24 * 3600


def start_session(state: SessionState, command: cmd.StartSession, ctx: Context) -> list[ev.Event]:
    """Open a session; its creator is its GM, and the first seed epoch is committed."""
    if state.started:
        raise CommandRefusedError(f"session '{command.session_id}' already exists")
    check_text(command.session_id, "a session id", MAX_SESSION_ID, required=True)
    check_name(ctx.actor, "the GM's name")
    check_text(command.title, "a title", MAX_TEXT, required=True)
    title = command.title.strip()
    events: list[ev.Event] = [
        ev.SessionStarted(command.session_id, title, ctx.actor, command.manual_dice_allowed),
        ev.PlayerJoined(ctx.actor, GM, "", ctx.actor),
        ev.SeedCommitted(1, command.commitment, ALGORITHM),
    ]
    if not command.carried:
        return events
    # The carried sheets are decided on the session as these first events leave it.
    started = SessionState()
    for version, event in enumerate(events, start=1):
        evolve(started, version, event)
    return events + carry_sheets(started, command.carried, ctx)


def join_session(state: SessionState, command: cmd.JoinSession, ctx: Context) -> list[ev.Event]:
    """Join oneself as a player; adding someone else or a co-GM is the GM's."""
    require_open(state)
    name = normalize_name(command.name)
    if (name != ctx.actor or command.as_gm) and not state.is_gm(ctx.actor):
        # Not require_gm: its "join first" hint would send a newcomer back to this command.
        raise PermissionDeniedError("only a GM may add someone else or a co-GM")
    check_name(name)
    member = state.members.get(name)
    if member is not None and (member.is_gm or not command.as_gm):
        raise CommandRefusedError(f"{name} is already in session '{state.session_id}'")
    if member is None:
        _refuse_npc_name(state, name, ctx)
        refuse_lookalike(state, name, ctx)
    check_text(command.client_seed, "a client seed", MAX_TEXT)
    if command.client_seed and (command.name != ctx.actor or command.as_gm):
        # A client seed is entropy chosen after the commitment: only a player joining
        # themself, who cannot learn the seed, may choose it (never a GM, for anyone).
        raise PermissionDeniedError("only a player joining themself may choose a client seed")
    role = GM if command.as_gm else PLAYER
    # A promotion without a new client seed keeps the one the player joined with.
    client_seed = command.client_seed or (member.client_seed if member else "")
    return [ev.PlayerJoined(name, role, client_seed, ctx.actor)]


def _refuse_npc_name(state: SessionState, name: str, ctx: Context) -> None:
    """Refuse a newcomer under an NPC's name: they would take over that NPC's rolls."""
    npcs = [*state.npc_names, *(c.name for c in state.characters.values() if c.is_npc)]
    for npc in npcs:
        if ctx.lookalike(name, npc):
            raise CommandRefusedError(
                f"{npc!r} is an NPC of session '{state.session_id}'; join under another name"
            )


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
    """Close waiting rolls as they stand, reveal the last seed, and end the session.

    Disputes stay open for ``dispute_window`` seconds after the end: the revealed seed is
    what lets players check their dice.
    """
    require_open(state)
    require_gm(state, ctx.actor, "end the session")
    if not 0 <= command.dispute_window <= MAX_DISPUTE_WINDOW:
        raise InvalidInputError(
            f"a dispute window is 0 to {MAX_DISPUTE_WINDOW // 86400} days, "
            f"not {command.dispute_window} seconds"
        )
    events: list[ev.Event] = []
    nonces = itertools.count(state.next_nonce)  # for the fresh rounds of tied opposed checks
    for roll in state.rolls.values():
        if roll.status != AWAITING:
            continue
        if roll.request.opponent is not None:
            events += close_at_end(state, roll, ctx, lambda: next(nonces))
            continue
        events.append(ev.RollAccepted(roll.roll_id, ctx.actor, 0))
        events.append(resolution(roll.request, replay_state(roll)))
    ended_at = _moment(ctx)
    window = command.dispute_window if ended_at is not None else 0
    return [
        *events,
        _reveal(state, command.seed, ctx.actor),
        ev.SessionEnded(ctx.actor, ended_at, window),
    ]


def open_dispute(state: SessionState, command: cmd.OpenDispute, ctx: Context) -> list[ev.Event]:
    """Dispute a resolved roll one can see; one open dispute per roll at a time.

    After the end, disputes are taken during the window the GM set when ending.
    """
    require_disputable(state, ctx.now)
    require_member(state, ctx.actor)
    roll = find_roll(state, command.roll_id, ctx.actor)
    check_text(command.reason, "a dispute's reason", MAX_TEXT, required=True)
    reason = command.reason.strip()
    if roll.status == AWAITING:
        raise RollError(f"roll {roll.roll_id} is still awaiting rerolls; dispute it once resolved")
    if roll.voided:
        raise RollError(f"roll {roll.roll_id} is already void")
    if roll.open_dispute:
        raise RollError(f"roll {roll.roll_id} already has an open dispute")
    return [ev.RollDisputed(roll.roll_id, ctx.actor, reason, _moment(ctx))]


def resolve_dispute(
    state: SessionState, command: cmd.ResolveDispute, ctx: Context
) -> list[ev.Event]:
    """Rule on an open dispute: uphold the roll or void it (nothing is edited or deleted)."""
    require_disputable(state, ctx.now)
    require_gm(state, ctx.actor, "resolve a dispute")
    roll = find_roll(state, command.roll_id, ctx.actor)
    if not roll.open_dispute:
        raise RollError(f"roll {roll.roll_id} has no open dispute")
    if command.outcome not in tuple(cmd.Ruling):
        raise RollError("a dispute is either upheld or voided")
    check_optional(command.note, "a note", MAX_TEXT)
    ruling = ev.DisputeResolved(
        roll.roll_id, ctx.actor, cmd.Ruling(command.outcome).value, command.note, _moment(ctx)
    )
    return [ruling]


def _moment(ctx: Context) -> str | None:
    """Return when the command is decided, as the log records times (None if not told)."""
    return format_timestamp(ctx.now) if ctx.now is not None else None

"""Decide roll commands: requests, opposed checks, rerolls and acceptance (R3-R14)."""

from __future__ import annotations

from diceledger.domain.dice.checks import judge
from diceledger.domain.dice.engine import LowestBelowAverage, RollState, reroll, start
from diceledger.domain.dice.render import render_check, render_roll
from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.dice.sources import DiceSource, ManualSource
from diceledger.domain.errors import PermissionDeniedError, RerollError, RollError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import editions
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.guards import (
    refuse_lookalike,
    require_gm,
    require_member,
    require_open,
)
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.opposed import waiting_on_action
from diceledger.domain.session.references import dc_by_reference, from_saved, resolve_sides
from diceledger.domain.session.rolls import dice_events, spec_of
from diceledger.domain.session.state import SessionState
from diceledger.domain.session.text import (
    MAX_ACTION_ID,
    MAX_AGAINST,
    MAX_LABEL,
    MAX_SALT,
    MAX_TEXT,
    check_expression,
    check_name,
    check_optional,
    check_text,
)

# An allowance larger than any roll's dice is never needed; it also keeps the number far
# inside what every JSON reader holds exactly.
MAX_REROLLS = 1000


def source_for(
    state: SessionState,
    ctx: Context,
    faces: tuple[int, ...] | None,
    salt: str,
    client_seed: str | None = None,
) -> DiceSource:
    """Return typed-in dice if given (and allowed), else the seeded dice of the next nonce."""
    if faces is not None:
        if not state.manual_dice_allowed:
            raise PermissionDeniedError("the GM has forbidden typed-in dice in this session")
        return ctx.typed(faces)
    if client_seed is None:
        client_seed = state.members[ctx.actor].client_seed
    return ctx.dice(state.next_nonce, client_seed, salt)


def check_salt(state: SessionState, ctx: Context, salt: str, sides: tuple[str, ...]) -> None:
    """Refuse a salt chosen by someone who may learn the seed, or for an NPC's dice.

    A salt is entropy chosen after the seed's commitment. Whoever can read the seed vault
    (the operator; a GM who owns the store) could try salts until the dice suit them, so
    only a player, who cannot learn an unrevealed seed, may add one, and only to their own
    roll: an NPC's dice are the GM's to roll, and take none.
    """
    if not salt:
        return
    if state.is_gm(ctx.actor):
        raise RollError(
            "a GM's roll takes no salt: only a player, who cannot learn the unrevealed "
            "seed, may add entropy after the commitment"
        )
    npc = next((name for name in sides if name not in state.members), None)
    if npc is not None:
        raise RollError(f"a roll for an NPC ({npc}) takes no salt")


def finish_manual(source: DiceSource) -> None:
    """Refuse typed-in faces left over once the roll is drawn."""
    if isinstance(source, ManualSource):
        source.finish()


def _owner(state: SessionState, ctx: Context, on_behalf_of: str | None) -> str:
    # Every member may roll in every mode; only a GM rolls for someone else.
    owner = on_behalf_of or ctx.actor
    if owner != ctx.actor:
        require_gm(state, ctx.actor, "roll for someone else or an NPC")
    return owner


def refuse_unseen_rerolls(state: SessionState, ctx: Context, mode: RollMode, usable: int) -> None:
    """Refuse a player rerolls they would choose on their own blind roll, hidden from them."""
    if mode is RollMode.BLIND and not state.is_gm(ctx.actor) and usable:
        raise RerollError(
            "a blind roll is hidden from you, so you cannot choose dice to reroll: "
            "roll it with no rerolls, or let them be chosen automatically"
        )


def _check_target(command: cmd.RequestRoll, kind: RollKind) -> None:
    if kind is RollKind.OPPOSED:
        raise RollError("an opposed check is requested with both of its sides")
    if command.dc_reference is not None:
        if command.target is not None:
            raise RollError("a DC is either a number or an @reference, not both")
        if kind is not RollKind.SAVE:
            raise RollError("a DC by @reference is a save's, against the character it names")
        return
    checks = (RollKind.CHECK, RollKind.SAVE)
    if kind in checks and command.target is None:
        raise RollError(f"a {kind} needs a target or a DC")
    if kind not in checks and command.target is not None:
        raise RollError("a target applies to checks and saves, not to a plain roll")
    if kind is RollKind.SAVE and not command.against:
        raise RollError("a save records what it is against; give the origin")
    if kind is not RollKind.SAVE and command.against:
        raise RollError("only a save is made against an origin")


def allowance(
    state: SessionState,
    command: cmd.RequestRoll | cmd.RequestOpposed,
    roll_id: int,
    kind: RollKind,
) -> tuple[str, int, str, int]:
    """Return the action, the allowance granted to it, its scope, and what this roll may use."""
    action_id = command.action_id or f"roll-{roll_id}"
    action = state.actions.get(action_id)
    if action is None:
        if not 0 <= command.rerolls <= MAX_REROLLS:
            raise RerollError(f"a reroll allowance is 0 to {MAX_REROLLS}, not {command.rerolls}")
        scope = RerollScope(command.reroll_scope)  # a stray string is refused here
        return action_id, command.rerolls, scope.value, command.rerolls if scope.covers(kind) else 0
    if command.rerolls:
        raise RerollError(
            f"action '{action_id}' already has its allowance "
            f"({action.granted} {action.scope.value} rerolls)"
        )
    usable = action.remaining if action.covers(kind) else 0
    return action_id, 0, action.scope.value, usable


def _replaced(state: SessionState, command: cmd.RequestRoll, side: ev.CheckSide) -> None:
    """Allow one new roll in place of a voided one: the same request, by the same player."""
    replaces = command.replaces
    if replaces is None:
        return
    old = state.rolls.get(replaces)
    if old is None or not old.voided:
        raise RollError(f"roll {replaces} was not voided; only a voided roll can be rolled again")
    if old.replaced_by is not None:
        raise RollError(f"roll {replaces} was already rolled again, as roll {old.replaced_by}")
    before = old.request
    typed = before.asked[0] if before.asked else before.side.expression
    if before.on_behalf_of != side.name:
        raise RollError(f"roll {replaces} was {before.on_behalf_of}'s, not {side.name}'s")
    # The same request: what is rolled and what it is rolled against. The modifiers may
    # differ, as circumstances at the table may have changed since.
    target = command.target
    dc = target.dc_modifier if target else None
    asked = (command.kind, side.expression, target.value if target else None, dc, command.against)
    before_asked = (before.kind, typed, before.target, before.dc_modifier)
    if asked != (*before_asked, before.against):
        raise RollError(
            f"roll {replaces} may be rolled again only as the same request: "
            f"{before.kind} {typed}"
            + (f" vs {before.target}" if before.target is not None else "")
            + (f" against {before.against}" if before.against else "")
        )


def check_texts(command: cmd.RequestRoll | cmd.RequestOpposed, sides: list[ev.CheckSide]) -> None:
    """Refuse a request's text (label, salt, action id, origins, names) past its limits."""
    check_optional(command.label, "a label", MAX_LABEL)
    check_text(command.salt, "a salt", MAX_SALT)
    check_optional(command.action_id, "an action id", MAX_ACTION_ID)
    if command.action_id is not None and not command.action_id.strip():
        raise RollError("an action id may not be blank")
    if isinstance(command, cmd.RequestRoll):
        check_optional(command.against, "a save's origin", MAX_AGAINST)
        dc_label = command.target.dc_label if command.target else None
        check_optional(dc_label, "a DC's origin", MAX_LABEL)
    for side in sides:
        check_text(side.name, "a name", MAX_TEXT, required=True)
        check_expression(side.expression)
        for amount in (*side.advantage, *side.disadvantage, *side.eased, *side.hindered):
            check_optional(amount.label, "a source's label", MAX_LABEL)


def check_npc_names(state: SessionState, ctx: Context, sides: list[ev.CheckSide]) -> None:
    """Give an NPC's name the checks a member's name gets when it joins.

    An NPC is named by the GM who rolls for it; a name with an invisible character, or
    one a reader could take for a member's, would let a roll pass as that member's.
    """
    for side in sides:
        if side.name not in state.members:
            check_name(side.name, "an NPC's name")
            refuse_lookalike(state, side.name, ctx)


def refuse_while_opposed_waits(state: SessionState, action_id: str, besides: int = 0) -> None:
    """Refuse to spend an action's rerolls while an opposed check of it waits for them."""
    waiting = waiting_on_action(state, action_id, besides)
    if waiting is not None:
        raise RerollError(
            f"roll {waiting.roll_id}, an opposed check of action '{action_id}', waits for "
            "its rerolls; reroll or accept it first"
        )


def _refuse_constant(spec_dice: int, expression: str) -> None:
    if spec_dice == 0:
        raise RollError(f"'{expression}' rolls no dice; a roll needs at least one die (R2)")


def request_roll(state: SessionState, command: cmd.RequestRoll, ctx: Context) -> list[ev.Event]:
    """Roll a plain roll, a check or a save, and resolve it unless rerolls may follow."""
    require_open(state)
    require_member(state, ctx.actor)
    owner = _owner(state, ctx, command.on_behalf_of)
    command = from_saved(state, command, owner)
    kind = RollKind(command.kind)
    _check_target(command, kind)
    side = ev.CheckSide(
        owner,
        command.expression,
        command.advantage,
        command.disadvantage,
        command.eased,
        command.hindered,
    )
    check_texts(command, [side])
    check_npc_names(state, ctx, [side])
    command, dc = dc_by_reference(state, command)
    _replaced(state, command, side)
    resolved = resolve_sides(state, (side,))
    roll_id = len(state.rolls) + 1
    action_id, granted, scope, usable = allowance(state, command, roll_id, kind)
    action = state.actions.get(action_id)
    if action is not None and action.owner != ctx.actor:
        raise PermissionDeniedError(f"action '{action_id}' belongs to {action.owner}")
    # The default policy may choose for a roller who cannot see the dice.
    refuse_unseen_rerolls(state, ctx, command.mode, 0 if command.auto_reroll else usable)
    request = new_request(
        state,
        ctx,
        command,
        kind=kind,
        side=resolved.sides[0],
        action_id=action_id,
        rerolls_granted=granted,
        reroll_scope=scope,
        references=resolved.references + dc,
        asked=resolved.asked,
    )
    check_salt(state, ctx, command.salt, (owner,))
    spec = spec_of(request, request.side)
    _refuse_constant(spec.expression.dice_count, command.expression)
    source = source_for(state, ctx, command.faces, command.salt)
    rolled = start(spec, source, usable)
    events: list[ev.Event] = [
        request,
        *dice_events(roll_id, rolled.dice, request.epoch, request.nonce),
    ]
    nonce = request.nonce
    while command.auto_reroll and rolled.rerolls_left:
        chosen = LowestBelowAverage().choose(rolled)
        if not chosen:
            break
        refuse_while_opposed_waits(state, action_id)
        nonce += 1
        step_source = (
            source
            if command.faces is not None
            else ctx.dice(nonce, request.client_seed, request.salt)
        )
        before = len(rolled.dice)
        rolled = reroll(rolled, chosen, step_source)
        events += dice_events(roll_id, rolled.dice[before:], request.epoch, nonce)
    finish_manual(source)
    if not rolled.awaiting_decision or command.auto_reroll:
        events.append(resolution(request, rolled))
    return events


def new_request(
    state: SessionState,
    ctx: Context,
    command: cmd.RequestRoll | cmd.RequestOpposed,
    *,
    kind: RollKind,
    side: ev.CheckSide,
    action_id: str,
    opponent: ev.CheckSide | None = None,
    rerolls_granted: int = 0,
    reroll_scope: str = "effect",
    opponent_rerolls_granted: int | None = None,
    references: tuple[ev.SheetValue, ...] = (),
    asked: tuple[str, ...] = (),
) -> ev.RollRequested:
    """Return the request event: the next roll id and nonce, the epoch, and what was asked."""
    check_edition(state, command.rules_edition)
    checked = command if isinstance(command, cmd.RequestRoll) else None
    return ev.RollRequested(
        roll_id=len(state.rolls) + 1,
        nonce=state.next_nonce,
        epoch=state.epoch.number,
        roller=ctx.actor,
        on_behalf_of=side.name,
        kind=kind.value,
        side=side,
        median=command.median,
        exploding=command.exploding,
        target=checked.target.value if checked and checked.target else None,
        dc_modifier=checked.target.dc_modifier if checked and checked.target else None,
        dc_label=checked.target.dc_label if checked and checked.target else None,
        against=checked.against if checked else None,
        opponent=opponent,
        action_id=action_id,
        rerolls_granted=rerolls_granted,
        reroll_scope=reroll_scope,
        mode=command.mode.value,
        label=command.label,
        client_seed=state.members[ctx.actor].client_seed,
        salt=command.salt,
        manual=command.faces is not None,
        replaces=checked.replaces if checked else None,
        rules_edition=command.rules_edition,
        opponent_rerolls_granted=opponent_rerolls_granted,
        references=references,
        asked=asked,
    )


def check_edition(state: SessionState, edition: int) -> None:
    """Refuse an edition of the request rules that is unknown or older than the session's.

    Editions only ever go forward within a session, so a log cannot claim an older rule
    for one request once it has been held to a newer one; the last roll's edition is the
    session's (roll ids run 1, 2, 3, ... without a gap).
    """
    if edition not in editions.KNOWN:
        raise RollError(f"no edition {edition} of the request rules is known")
    last = state.rolls.get(len(state.rolls))
    if last is not None and edition < last.request.rules_edition:
        raise RollError(
            f"a request of edition {edition} of the rules cannot follow one of edition "
            f"{last.request.rules_edition}: a session's rules only go forward"
        )


def resolution(request: ev.RollRequested, rolled: RollState) -> ev.Event:
    """Return the event that closes a single-sided roll."""
    if request.target is None:
        return ev.RollResolved(request.roll_id, rolled.total, render_roll(rolled))
    outcome = judge(rolled.total, Target(request.target, request.dc_modifier, request.dc_label))
    return ev.CheckResolved(
        request.roll_id,
        rolled.total,
        outcome.target,
        outcome.success,
        outcome.margin,
        render_check(rolled, outcome),
    )

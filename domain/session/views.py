"""Read models for one command's answer: a roll or a session as plain data.

These are the stable shapes behind ``--json`` (documented in docs/cli.md) and behind the
human lines. A viewer who may not see a hidden blind roll gets only that it happened.
"""

from __future__ import annotations

from diceledger.domain.dice.breakdown import die_views
from diceledger.domain.dice.checks import judge
from diceledger.domain.dice.engine import RollState
from diceledger.domain.dice.render import PLAIN, Style, render_check, render_roll
from diceledger.domain.dice.request import RerollScope, Target
from diceledger.domain.hashchain import format_timestamp
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.session import events as ev
from diceledger.domain.session.modes import RollMode, hidden_text
from diceledger.domain.session.opposed import (
    rerolls_left,
    side_name,
    side_scope,
    typed_by,
    waiting_side,
)
from diceledger.domain.session.rolls import (
    die_records,
    replay_rounds,
    replay_side,
    replay_state,
    rounds_of,
)
from diceledger.domain.session.state import RESOLVED, Roll, SessionState
from diceledger.domain.session.view_parts import side_sources, summands
from diceledger.domain.session.visibility import Sight, Viewer, sight_of


def _dice(
    session: SessionState, roll: Roll, state: RollState, records: list[ev.DieRecord], side: int
) -> list[JsonObject]:
    """Return one side's dice of one round, each with who typed it in (None: the server's)."""
    nonce_of = _by_index(records)
    rows: list[JsonObject] = []
    for view in die_views(state):
        die = view.die
        record = nonce_of.get(die.index)
        manual = die.draw.provenance.value == "manual"
        rows.append(
            {
                "index": die.index,
                "sides": die.sides,
                "face": die.face,
                "counted": view.counted,
                "discarded": view.discarded,
                "reason": die.reason.value,
                "step": die.step,
                "parent": die.parent,
                "source": die.draw.provenance.value,
                # Who typed a manual die in; None for the server's dice.
                "typed_by": typed_by(session, roll, side, record.nonce if record else None)
                if manual
                else None,
                "epoch": record.epoch if record else None,
                "nonce": record.nonce if record else None,
                "block": die.draw.block,
                "word": die.draw.word,
            }
        )
    return rows


def _by_index(records: list[ev.DieRecord]) -> dict[int, ev.DieRecord]:
    return {record.index: record for record in records}


def roll_line(roll: Roll, style: Style = PLAIN) -> str:
    """Return the roll's one-line rendering in ``style``."""
    request = roll.request
    if request.opponent is not None:
        return "; ".join(
            f"round {n}: {request.side.name} {render_roll(a, style)}, "
            f"{request.opponent.name} "
            + ("yet to roll their own dice" if b is None else render_roll(b, style))
            for n, (a, b) in enumerate(replay_rounds(roll), start=1)
        )
    state = replay_state(roll)
    if request.target is None:
        return render_roll(state, style)
    target = Target(request.target, request.dc_modifier, request.dc_label)
    return render_check(state, judge(state.total, target), style)


def roll_view(session: SessionState, roll: Roll, viewer: Viewer) -> JsonObject:
    """Return a roll as data: request, status, outcome and every die with its provenance."""
    return sighted_roll_view(session, roll, sight_of(session, roll, viewer))


def sighted_roll_view(session: SessionState, roll: Roll, sight: Sight) -> JsonObject:
    """Return a roll as every viewer of ``sight`` sees it (one view serves them all)."""
    request = roll.request
    if sight is Sight.HIDDEN:
        return hidden_roll_view(session, roll)
    view: JsonObject = {
        "session_id": session.session_id,
        "roll_id": roll.roll_id,
        "kind": request.kind,
        "roller": request.roller,
        "for": request.on_behalf_of,
        "mode": request.mode,
        "blind": request.mode == RollMode.BLIND,
        "label": request.label,
    }
    resolution = roll.resolution
    view |= {
        "expression": request.side.expression,
        "action_id": request.action_id,
        "status": roll.status,
        "rerolls_left": rerolls_open(session, roll)[0],
        "total": resolution.total if resolution else replay_total(roll),
        "target": request.target,
        "dc_modifier": request.dc_modifier,
        "dc_label": request.dc_label,
        "against": request.against,
        "success": getattr(resolution, "success", None),
        "margin": getattr(resolution, "margin", None),
        "voided": roll.voided,
        "replaces": request.replaces,  # the voided roll this one rolls again
        "replaced_by": roll.replaced_by,  # the roll that rolled this voided one again
        "disputed": bool(roll.disputes),
        "open_dispute": roll.open_dispute,
        # The GM's ruling on a dispute, with its note: the players are owed the reason.
        "ruling": None
        if roll.ruling is None
        else {"outcome": roll.ruling.outcome, "by": roll.ruling.by, "note": roll.ruling.note},
        "hidden": roll.hidden,  # not public and not yet revealed: someone may not see it
        "may_reveal": sight is Sight.REVEALABLE,  # whether this viewer may show it
        "line": roll_line(roll),
    }
    view |= {"exploding": request.exploding, "manual": request.manual}
    if request.opponent is None:
        state = replay_state(roll)
        view |= side_sources(request.side, request.median) | summands(state)
        return view | {"dice": [*_dice(session, roll, state, die_records(roll), 0)]}
    rounds = replay_rounds(roll)
    dice: list[JsonValue] = [
        {"side": side, "side_name": side_name(request, side), "round": number, **row}
        for number, pair in enumerate(rounds, start=1)
        for side, state in enumerate(pair)
        if state is not None
        for row in _dice(session, roll, state, die_records(roll, side, number), side)
    ]
    last = rounds[-1]
    resolved = roll.status == RESOLVED
    contestants: list[JsonValue] = [
        _contestant(side, state, request.median)
        | {
            "rerolls_spent": roll.rerolls_of(number),
            "rerolls_left": 0 if resolved else rerolls_left(session, roll, number),
        }
        for number, (side, state) in enumerate(
            ((request.side, last[0]), (request.opponent, last[1]))
        )
    ]
    winner = resolution.winner if isinstance(resolution, ev.CheckResolved) else None
    waiting = waiting_side(session, roll)
    return view | {
        "dice": dice,
        "contestants": contestants,
        "winner": winner,
        "rounds": len(rounds),
        "round_totals": [[a.total, None if b is None else b.total] for a, b in rounds],
        "waiting_for": None if waiting is None else side_name(request, waiting),
        "waiting_for_dice": last[1] is None,
    }


def hidden_roll_view(session: SessionState, roll: Roll) -> JsonObject:
    """Return what a viewer who may not see a roll learns: who rolled and in which mode,
    not for whom, what or why."""
    roller = roll.request.roller
    return {
        "session_id": session.session_id,
        "roll_id": roll.roll_id,
        "roller": roller,
        "mode": roll.mode.value,
        "blind": roll.mode is RollMode.BLIND,
        "status": "hidden",
        "text": hidden_text(roll.mode, roller, session.is_gm(roller)),
    }


def _contestant(side: ev.CheckSide, state: RollState | None, median: bool) -> JsonObject:
    """Return one side in its last round; its total is null while its member has yet to roll."""
    total = None if state is None else state.total
    named: JsonObject = {"name": side.name, "expression": side.expression, "total": total}
    taken = {"parts": [], "divisors": []} if state is None else summands(state)
    return named | side_sources(side, median) | taken


def replay_total(roll: Roll) -> int:
    """Return the current total of a roll still waiting for rerolls (an opposed check: the
    request's side in the current round)."""
    if roll.request.opponent is not None:
        return replay_side(roll, 0, rounds_of(roll)).total
    return replay_state(roll).total


def rerolls_open(session: SessionState, roll: Roll) -> tuple[int, RerollScope]:
    """Return the rerolls the roll's waiting roller may still spend on it, and their scope.

    For an opposed check, those of the side whose turn it is; 0 once the roll is resolved.
    """
    request = roll.request
    if request.opponent is not None:
        side = waiting_side(session, roll)
        if side is None:
            return 0, RerollScope.EFFECT
        return rerolls_left(session, roll, side), side_scope(session, request, side)
    action = session.actions[request.action_id]
    if roll.status == RESOLVED:
        return 0, action.scope
    return (action.remaining if action.covers(request.kind) else 0), action.scope


def session_view(session: SessionState, viewer: Viewer) -> JsonObject:
    """Return the session's members, seed epochs and rolls as the viewer may see them."""
    return {
        "session_id": session.session_id,
        "title": session.title,
        "gm": session.creator,
        "ended": session.ended,
        "disputes_until": (
            format_timestamp(session.disputes_until) if session.disputes_until else None
        ),
        "manual_dice_allowed": session.manual_dice_allowed,
        "members": [
            {"name": m.name, "role": m.role, "client_seed": m.client_seed}
            for m in session.members.values()
        ],
        "epochs": [
            {
                "epoch": e.number,
                "commitment": e.commitment,
                "algorithm": e.algorithm,
                "seed": e.seed,
            }
            for e in session.epochs
        ],
        "rolls": [roll_view(session, roll, viewer) for roll in session.rolls.values()],
    }

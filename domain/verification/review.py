"""The dispute review of one roll: every die with its provenance, and R14 step by step."""

from __future__ import annotations

from collections.abc import Sequence

from diceledger.domain.dice.breakdown import breakdown, die_views
from diceledger.domain.dice.engine import Reason, RollState
from diceledger.domain.dice.request import DC_BASE
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.session import events as ev
from diceledger.domain.session.opposed import side_name, typed_by
from diceledger.domain.session.rolls import die_records, replay_rounds, replay_state
from diceledger.domain.session.state import Roll, SessionState
from diceledger.domain.verification.derivation import matches, rederive
from diceledger.domain.verification.outcomes import check_roll

EventRef = tuple[int, int, str, str]  # position, stream version, event type, hash


def _sources(amounts: Sequence[ev.Amount]) -> str:
    return ", ".join(f"{a.amount}" + (f" ({a.label})" if a.label else "") for a in amounts)


def _request_step(request: ev.RollRequested) -> str:
    side = request.side
    text = f"request: {request.kind} {side.expression} by {request.roller}"
    if request.on_behalf_of != request.roller:
        text += f" for {request.on_behalf_of}"
    if request.target is not None:
        dc = f" (DC: {DC_BASE} + {request.dc_modifier})" if request.dc_modifier is not None else ""
        text += f" against target {request.target}{dc}"
    if request.against:
        text += f", a save against {request.against}"
    score = sum(a.amount for a in side.advantage) - sum(a.amount for a in side.disadvantage)
    if side.advantage or side.disadvantage:
        text += (
            f"; advantage [{_sources(side.advantage)}] minus disadvantage "
            f"[{_sources(side.disadvantage)}] = score {score:+d}"
        )
    if request.median:
        text += "; median check"
    if request.opponent is not None:
        text += f"; opposed by {request.opponent.name} {request.opponent.expression}"
        if request.opponent_rerolls_granted or request.rerolls_granted:
            text += (
                f"; rerolls: {side.name} {request.rerolls_granted} ({request.reroll_scope}, "
                f"action {request.action_id}), {request.opponent.name} "
                f"{request.opponent_rerolls_granted or 0}"
            )
    return text


def _counted_step(state: RollState) -> str:
    check = state.spec.check
    counted = [state.live[slot] for slot in state.counted_slots]
    faces = ", ".join(f"#{i} ({state.dice[i].face})" for i in counted)
    if check is None:
        return f"counted dice: all of them: {faces}"
    rank = check.counted_rank
    order = (
        "the middle"
        if check.median and check.score == 0
        else (
            "the second-highest"
            if check.median and check.score > 0
            else "the second-lowest"
            if check.median
            else "the highest"
            if rank == 0
            else "the lowest"
        )
    )
    return f"counted dice: {faces}; the check die counts {order} face of {check.pool_size}"


def _explosion_steps(state: RollState) -> list[str]:
    steps = []
    for index, chain in enumerate(state.chains):
        if chain:
            links = ", ".join(f"#{i} d{state.dice[i].sides}={state.dice[i].face}" for i in chain)
            die = state.dice[index]
            steps.append(f"explosion of #{index} (a {die.face} on a d{die.sides}): {links}")
    return steps or ["explosions: none"]


def _reroll_steps(state: RollState) -> list[str]:
    return [
        f"reroll: #{d.parent} ({state.dice[d.parent].face}) discarded, #{d.index} shows {d.face}"
        for d in state.dice
        if d.reason is Reason.REROLL and d.parent is not None
    ] or ["rerolls: none"]


def _total_steps(state: RollState, request: ev.RollRequested) -> list[str]:
    parts = breakdown(state)
    summands = " ".join(f"{'+' if p.sign > 0 else '-'} {p.value} ({p.text})" for p in parts.parts)
    ease = sum(m.amount for m in parts.eased) - sum(m.amount for m in parts.hindered)
    steps = [f"modifiers: {summands.lstrip('+ ')}; eased/hindered net {ease:+d}"]
    steps.append(
        "divisions: " + (", ".join(f"/ {d} (rounded down)" for d in parts.divisors) or "none")
    )
    if request.target is None:
        steps.append(f"total: {state.total}")
    else:
        verdict = "success" if state.total >= request.target else "failure"
        steps.append(
            f"comparison: {state.total} vs {request.target}: {verdict} "
            f"(margin {state.total - request.target:+d})"
        )
    return steps


def _opposed_steps(roll: Roll) -> list[str]:
    """Return each round: each side's rerolls and accept in turn, then the comparison."""
    request = roll.request
    rounds = replay_rounds(roll)
    steps = [_request_step(request)]
    for number, pair in enumerate(rounds, start=1):
        for side, state in enumerate(pair):
            name = side_name(request, side)
            if state is None:
                steps.append(f"round {number}, {name}: yet to roll their own dice")
                continue
            initial = ", ".join(
                f"#{d.index} d{d.sides}={d.face}" for d in state.dice if d.reason is Reason.INITIAL
            )
            steps.append(f"round {number}, {name}: dice rolled: {initial}")
            steps += [
                f"round {number}, {name}: {step}"
                for step in _reroll_steps(state)
                if step != "rerolls: none"
            ]
            steps += [
                f"round {number}, {name}: accepted by {a.by} ({a.rerolls_left} rerolls left)"
                for a in roll.accepts
                if (a.side, a.round) == (side, number)
            ]
        first, second = pair
        if second is None:
            steps.append(f"round {number}: not compared yet: {side_name(request, 1)} rolls next")
            continue
        compared = roll.resolution is not None or number < len(rounds)
        verdict = (
            " (tie: roll again)"
            if compared and first.total == second.total
            else ""
            if compared
            else " (not compared yet: a side may still reroll)"
        )
        steps.append(
            f"round {number}: {request.side.name} {first.total}, "
            f"{side_name(request, 1)} {second.total}{verdict}"
        )
    return steps + [f"status: {roll.status}"]


def resolution_steps(roll: Roll) -> list[str]:
    """Return the roll's resolution in the order of R14, one line a step."""
    request = roll.request
    if request.opponent is not None:
        return _opposed_steps(roll)
    state = replay_state(roll)
    initial = ", ".join(
        f"#{d.index} d{d.sides}={d.face}" for d in state.dice if d.reason is Reason.INITIAL
    )
    return [
        _request_step(request),
        f"dice rolled: {initial}",
        _counted_step(state),
        *_explosion_steps(state),
        *_reroll_steps(state),
        *_total_steps(state, request),
        f"status: {roll.status}",
    ]


def _groups(roll: Roll) -> list[tuple[JsonObject, list[ev.DieRecord], RollState]]:
    """Return the roll's dice in groups that resolve together: one side of one round each."""
    request = roll.request
    if request.opponent is None:
        return [({}, die_records(roll), replay_state(roll))]
    return [
        (
            {"side": side, "side_name": side_name(request, side), "round": number},
            die_records(roll, side, number),
            state,
        )
        for number, pair in enumerate(replay_rounds(roll), start=1)
        for side, state in enumerate(pair)
        if state is not None
    ]


def _dice_rows(session: SessionState, roll: Roll) -> list[JsonValue]:
    # Derived in log order (each nonce's dice in draw order), shown group by group.
    logged = die_records(roll)
    derived = dict(zip(map(id, logged), _derivations(session, roll, logged), strict=True))
    rows: list[JsonValue] = []
    for where, records, state in _groups(roll):
        standing = {v.die.index: (v.counted, v.discarded) for v in die_views(state)}
        side = where.get("side", 0)
        assert isinstance(side, int)
        rows += [
            {
                **where,
                **_row(r, standing.get(r.index), derived[id(r)]),
                # Who typed a die in (each side its own, R6); None for the server's dice.
                "typed_by": typed_by(session, roll, side, r.nonce)
                if r.source == "manual"
                else None,
            }
            for r in records
        ]
    return rows


def _row(r: ev.DieRecord, standing: tuple[bool, bool] | None, verified: str) -> JsonObject:
    counted, discarded = standing if standing is not None else (None, None)
    return {
        "index": r.index,
        "sides": r.sides,
        "face": r.face,
        "reason": r.reason,
        "step": r.step,
        "parent": r.parent,
        "source": r.source,
        "epoch": r.epoch,
        "nonce": r.nonce,
        "block": r.block,
        "word": r.word,
        "counted": counted,
        "discarded": discarded,
        "verified": verified,
    }


def _derivations(session: SessionState, roll: Roll, records: list[ev.DieRecord]) -> list[str]:
    status = ["manual: typed in, cannot be verified"] * len(records)
    by_nonce: dict[int, list[int]] = {}
    for n, record in enumerate(records):
        if record.source == "seeded":
            by_nonce.setdefault(record.nonce, []).append(n)
    for nonce, positions in by_nonce.items():
        epoch = session.epochs[(records[positions[0]].epoch or 1) - 1]
        if epoch.seed is None:
            for n in positions:
                status[n] = f"not yet verifiable: epoch {epoch.number} is not revealed"
            continue
        dice = [records[n] for n in positions]
        draws = rederive(
            bytes.fromhex(epoch.seed),
            session.session_id or "",
            nonce,
            roll.request.client_seed,
            roll.request.salt,
            dice,
        )
        for n, draw, die in zip(positions, draws, dice, strict=True):
            status[n] = "verified" if matches(draw, die) else f"FAILED: the seed gives {draw.face}"
    return status


def review(
    session: SessionState,
    roll: Roll,
    events: Sequence[EventRef],
    session_check: JsonObject,
    sheet: Sequence[JsonValue] = (),
) -> JsonObject:
    """Return the review report of a roll (the shape behind `dispute review --json`)."""
    player = roll.request.on_behalf_of
    others: list[JsonValue] = [
        {
            "roll_id": r.roll_id,
            "reasons": [d.reason for d in r.disputes],
            "outcome": r.ruling.outcome if r.ruling else "open",
        }
        for r in session.rolls.values()
        if r.disputes and r.request.on_behalf_of == player and r is not roll
    ]
    problems = check_roll(roll)
    return {
        "session_id": session.session_id,
        "roll_id": roll.roll_id,
        "request": _request_step(roll.request),
        "status": roll.status,
        "voided": roll.voided,
        "disputes": [{"by": d.by, "reason": d.reason} for d in roll.disputes],
        "ruling": None
        if roll.ruling is None
        else {"by": roll.ruling.by, "outcome": roll.ruling.outcome, "note": roll.ruling.note},
        "dice": _dice_rows(session, roll),
        "steps": [*resolution_steps(roll)],
        "sheet": [*sheet],
        "events": [
            {"position": p, "stream_version": v, "event_type": t, "hash": h}
            for p, v, t, h in events
        ],
        "roll_verified": not problems,
        "roll_problems": [*problems],
        "session_verification": session_check,
        "other_disputes_of_player": others,
    }

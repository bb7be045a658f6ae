"""Resolve a recorded roll again from its dice and compare with what the log claims.

The dice are resolved by the reference engine (reference.py), not the one that rolled
them, so a fault of the production engine shows as a failure here.
"""

from __future__ import annotations

from collections.abc import Sequence

from diceledger.domain.dice.rollstate import Die
from diceledger.domain.errors import DiceledgerError
from diceledger.domain.session import events as ev
from diceledger.domain.session.rolls import (
    die_records,
    rolls_own_dice,
    rounds_of,
    side_events,
    spec_of,
)
from diceledger.domain.session.state import Roll
from diceledger.domain.verification.reference import ReadableRoll, replay


def _shape(die: Die) -> tuple[object, ...]:
    return (
        die.index,
        die.term,
        die.slot,
        die.sides,
        die.face,
        die.reason.value,
        die.step,
        die.parent,
    )


def _recorded_shape(record: ev.DieRecord) -> tuple[object, ...]:
    return (
        record.index,
        record.term,
        record.slot,
        record.sides,
        record.face,
        record.reason,
        record.step,
        record.parent,
    )


def _compare_dice(roll_id: int, rolled: ReadableRoll, records: Sequence[ev.DieRecord]) -> list[str]:
    for die, record in zip(rolled.dice, records, strict=False):
        if _shape(die) != _recorded_shape(record):
            return [
                f"roll {roll_id} die {die.index}: recorded as {_recorded_shape(record)}, "
                f"the rules give {_shape(die)}"
            ]
    return []


def check_roll(roll: Roll) -> list[str]:
    """Return what does not hold when the roll is resolved again (empty when all does)."""
    try:
        if roll.request.opponent is None:
            return _check_single(roll)
        return _check_opposed(roll)
    except DiceledgerError as error:
        return [f"roll {roll.roll_id}: its dice do not resolve under the rules: {error}"]


def _check_single(roll: Roll) -> list[str]:
    rolled = replay(spec_of(roll.request, roll.request.side), roll.dice)
    problems = _compare_dice(roll.roll_id, rolled, die_records(roll))
    resolution = roll.resolution
    if resolution is None or problems:
        return problems
    if resolution.total != rolled.total:
        return [
            f"roll {roll.roll_id}: the log says total {resolution.total}, "
            f"the dice give {rolled.total}"
        ]
    target = roll.request.target
    if isinstance(resolution, ev.CheckResolved):
        expected = (
            (target, rolled.total >= target, rolled.total - target)
            if target is not None
            else (None, None, None)
        )
        claimed = (resolution.target, resolution.success, resolution.margin)
        if claimed != expected:
            return [
                f"roll {roll.roll_id}: the log says target/success/margin {claimed}, "
                f"the rules give {expected}"
            ]
    elif target is not None:
        return [f"roll {roll.roll_id}: a check was resolved as a plain roll"]
    return []


def _check_opposed(roll: Roll) -> list[str]:
    rounds = _replayed_rounds(roll)
    for number, pair in enumerate(rounds, start=1):
        for side, rolled in enumerate(pair):
            if rolled is None:
                continue  # the side's member has yet to roll it
            problems = _compare_dice(roll.roll_id, rolled, die_records(roll, side, number))
            if problems:
                return problems
    request, resolution = roll.request, roll.resolution
    assert request.opponent is not None
    granted = request.opponent_rerolls_granted or 0
    if roll.rerolls_of(1) > granted:
        return [
            f"roll {roll.roll_id}: {request.opponent.name}'s side rerolled "
            f"{roll.rerolls_of(1)} dice, its allowance is {granted}"
        ]
    # Every round before the last tied; the last is compared only once the check resolves.
    judged = rounds if resolution is not None else rounds[:-1]
    tied = [n for n, (a, b) in enumerate(judged, start=1) if b is not None and a.total == b.total]
    if [t.round for t in roll.ties] != tied or tied != list(range(1, len(rounds))):
        return [
            f"roll {roll.roll_id}: the log's tied rounds {[t.round for t in roll.ties]} "
            f"do not match the dice ({tied})"
        ]
    if not isinstance(resolution, ev.CheckResolved):
        return (
            []
            if resolution is None
            else [f"roll {roll.roll_id}: an opposed check needs a check result"]
        )
    first, second = rounds[-1]
    if second is None:
        return [f"roll {roll.roll_id}: resolved before {request.opponent.name} rolled"]
    winner = request.side.name if first.total > second.total else request.opponent.name
    claimed = (resolution.total, resolution.opponent_total, resolution.winner, resolution.rounds)
    expected = (first.total, second.total, winner, len(rounds))
    if claimed != expected:
        return [f"roll {roll.roll_id}: the log says {claimed}, the dice give {expected}"]
    return []


def _replayed_rounds(roll: Roll) -> list[tuple[ReadableRoll, ReadableRoll | None]]:
    """Resolve each round again; the other side of an open check's last round is None
    while its member, who rolls their own dice, has yet to roll it."""
    request = roll.request
    assert request.opponent is not None
    first, second = spec_of(request, request.side), spec_of(request, request.opponent)
    last, own = rounds_of(roll), rolls_own_dice(roll)
    rounds: list[tuple[ReadableRoll, ReadableRoll | None]] = []
    for n in range(1, last + 1):
        theirs = side_events(roll, 1, n)
        waiting = own and not theirs and n == last and roll.resolution is None
        mine = replay(first, side_events(roll, 0, n))
        rounds.append((mine, None if waiting else replay(second, theirs)))
    return rounds

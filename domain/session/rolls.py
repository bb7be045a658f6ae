"""Between the dice engine and the events: requests to specs, dice to records and back."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from diceledger.domain.dice.engine import Die, RollState, reroll, start
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import Modifier, RollKind, RollSpec, build_spec
from diceledger.domain.dice.sources import Draw, Provenance, ReplaySource
from diceledger.domain.errors import CorruptLogError
from diceledger.domain.session import events as ev
from diceledger.domain.session.state import Roll

CHECK_KINDS = frozenset({RollKind.CHECK, RollKind.SAVE, RollKind.OPPOSED})


def modifiers(amounts: Iterable[ev.Amount]) -> tuple[Modifier, ...]:
    """Return engine modifiers for recorded amounts."""
    return tuple(Modifier(a.amount, a.label) for a in amounts)


def spec_of(request: ev.RollRequested, side: ev.CheckSide) -> RollSpec:
    """Return the engine spec one side of a request asked for."""
    check = RollKind(request.kind) in CHECK_KINDS
    return _spec(side, check, request.median, request.exploding)


@functools.lru_cache(maxsize=4096)
def _spec(side: ev.CheckSide, check: bool, median: bool, exploding: bool) -> RollSpec:
    # Deciding a command, folding it and viewing it each ask a request for its spec, so a
    # roll built the same spec several times. A spec is immutable and follows from these
    # four alone: it is built once per process and shared (bounded, least recently used).
    return build_spec(
        parse(side.expression),
        check=check,
        advantage=modifiers(side.advantage),
        disadvantage=modifiers(side.disadvantage),
        median=median,
        eased=modifiers(side.eased),
        hindered=modifiers(side.hindered),
        exploding=exploding,
    )


def record_of(die: Die, epoch: int, nonce: int) -> ev.DieRecord:
    """Return the event record of an engine die drawn under ``nonce``."""
    seeded = die.draw.provenance is Provenance.SEEDED
    return ev.DieRecord(
        index=die.index,
        term=die.term,
        slot=die.slot,
        sides=die.sides,
        face=die.face,
        reason=die.reason.value,
        step=die.step,
        parent=die.parent,
        source=die.draw.provenance.value,
        epoch=epoch if seeded else None,
        nonce=nonce,
        block=die.draw.block,
        word=die.draw.word,
    )


def draw_of(record: ev.DieRecord) -> Draw:
    """Return the draw a recorded die came from."""
    return Draw(record.sides, record.face, Provenance(record.source), record.block, record.word)


def dice_events(
    roll_id: int, dice: Sequence[Die], epoch: int, nonce: int, side: int = 0, round_: int = 1
) -> list[ev.Event]:
    """Return the events for newly drawn dice: initial ones together, then one per die."""
    initial = tuple(record_of(d, epoch, nonce) for d in dice if d.reason.value == "initial")
    events: list[ev.Event] = [ev.DiceRolled(roll_id, initial, side, round_)] if initial else []
    for die in dice:
        record = record_of(die, epoch, nonce)
        if die.reason.value == "explosion":
            events.append(ev.DieExploded(roll_id, record, side, round_))
        elif die.reason.value == "reroll":
            assert die.parent is not None
            events.append(ev.DieRerolled(roll_id, record, die.parent, side, round_))
    return events


DiceEvent = ev.DiceRolled | ev.DieExploded | ev.DieRerolled


def side_events(roll: Roll, side: int, round_: int) -> list[DiceEvent]:
    """Return the dice events of one side and round of a roll (0 and 1 for a single side)."""
    return [e for e in roll.dice if (e.side, e.round) == (side, round_)]


def rounds_of(roll: Roll) -> int:
    """Return how many rounds a roll has dice in (1 for a single-sided roll)."""
    return max((e.round for e in roll.dice), default=1)


def _records(events: Sequence[DiceEvent]) -> list[ev.DieRecord]:
    records: list[ev.DieRecord] = []
    for event in events:
        records.extend(event.dice if isinstance(event, ev.DiceRolled) else (event.die,))
    return records


def die_records(
    roll: Roll, side: int | None = None, round_: int | None = None
) -> list[ev.DieRecord]:
    """Return a roll's recorded dice in draw order; for an opposed check, one side and round."""
    if side is None:
        return _records(roll.dice)
    return _records(side_events(roll, side, round_ or 1))


def replay_state(roll: Roll) -> RollState:
    """Resolve a single-sided roll again from its recorded dice, rerolls included."""
    return replay_events(spec_of(roll.request, roll.request.side), roll.dice)


def replay_side(roll: Roll, side: int, round_: int) -> RollState:
    """Resolve one side of one round of an opposed check again, its rerolls included."""
    request = roll.request
    asked = request.side if side == 0 or request.opponent is None else request.opponent
    return replay_events(spec_of(request, asked), side_events(roll, side, round_))


def rolls_own_dice(roll: Roll) -> bool:
    """Tell whether the other side of an opposed check rolls its own dice in every round.

    Its member rolls them with commands of their own (``RollSide``), under nonces of their
    own: a request that rolls that side draws its first round under the request's nonce.
    A side with no dice to draw has nothing to roll, so it never rolls its own.
    """
    request = roll.request
    if request.opponent is None or not spec_of(request, request.opponent).plan.sides:
        return False
    return not any(
        (e.side, e.round) == (1, 1) and e.dice[0].nonce == request.nonce
        for e in roll.dice
        if isinstance(e, ev.DiceRolled) and e.dice
    )


def rolled_side(roll: Roll, side: int, round_: int, own: bool) -> RollState | None:
    """Resolve one side of one round again; None while its member has yet to roll it.

    ``own`` is ``rolls_own_dice(roll)``, read once by the caller for every side and round.
    """
    if side == 1 and own and not side_events(roll, side, round_):
        return None
    return replay_side(roll, side, round_)


def replay_rounds(roll: Roll) -> list[tuple[RollState, RollState | None]]:
    """Resolve each round of an opposed check again from its recorded dice.

    The other side of the last round is None while its member has yet to roll it.
    """
    own = rolls_own_dice(roll)
    return [
        (replay_side(roll, 0, number), rolled_side(roll, 1, number, own))
        for number in range(1, rounds_of(roll) + 1)
    ]


def replay_events(spec: RollSpec, events: Sequence[DiceEvent]) -> RollState:
    """Resolve one side's dice events again: the initial dice, then each reroll in turn."""
    parts = segments(events)
    return replay_segments(spec, [(None if e is None else e.replaced, d) for e, d in parts])


# The draws of one side, cut where it rerolled: the die each reroll replaced (None for the
# initial dice) and the draws from there to the next reroll.
Segment = tuple[int | None, Sequence[Draw]]


def replay_segments(spec: RollSpec, parts: Sequence[Segment]) -> RollState:
    """Resolve one side again from its draws cut into segments (see ``segments``)."""
    (_, first), *rerolls = parts
    state = _start_from(spec, first, len(rerolls))
    for number, (replaced, draws) in enumerate(rerolls, start=1):
        assert replaced is not None
        source = ReplaySource(draws)
        state = reroll(state, [replaced], source)
        all_used(source, f"reroll {number}")
    return state


def segments(
    events: Sequence[DiceEvent],
) -> list[tuple[ev.DieRerolled | None, list[Draw]]]:
    """Return the initial dice with their chains, then each reroll with the chains after it."""
    parts: list[tuple[ev.DieRerolled | None, list[Draw]]] = [(None, [])]
    for event in events:
        if isinstance(event, ev.DieRerolled):
            parts.append((event, [draw_of(event.die)]))
        elif isinstance(event, ev.DiceRolled):
            parts[-1][1].extend(draw_of(d) for d in event.dice)
        else:
            parts[-1][1].append(draw_of(event.die))
    return parts


def _start_from(spec: RollSpec, draws: Sequence[Draw], rerolls: int) -> RollState:
    source = ReplaySource(draws)
    state = start(spec, source, rerolls)
    all_used(source, "the initial dice")
    return state


def all_used(source: ReplaySource, what: str) -> None:
    """Refuse recorded dice that the rules never drew."""
    if source.remaining:
        raise CorruptLogError(f"{what}: {source.remaining} recorded dice were never needed")

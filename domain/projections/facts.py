"""What one resolved roll adds to each of its players' statistics (metric -> amount).

Every amount is an integer so that sums are exact and associative: a projection updated
batch by batch holds the same numbers as one rebuilt in a single pass. Probabilities are
kept in units of 10**-12 (``SCALE``), rounded once per check.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import Modifier, RerollScope, RollKind, RollSpec, build_spec
from diceledger.domain.errors import RollError
from diceledger.domain.odds import opposed_odds, success_probability
from diceledger.domain.session import events as ev
from diceledger.domain.session.rolls import CHECK_KINDS, replay_events, rounds_of, side_events
from diceledger.domain.session.state import Roll, SessionState

SCALE = 10**12
CHECKS = ("check", "save", "opposed")

Metrics = Counter[str]


def allowance_for(state: SessionState, request: ev.RollRequested) -> int:
    """Return the rerolls a new request may spend, read from the state before it (R11)."""
    kind = RollKind(request.kind)
    if request.opponent is not None and request.opponent_rerolls_granted is None:
        return 0  # an opposed check of version 1 took no rerolls
    action = state.actions.get(request.action_id)
    if action is None:
        return request.rerolls_granted if RerollScope(request.reroll_scope).covers(kind) else 0
    return action.remaining if action.covers(request.kind) else 0


def players_of(session: SessionState, roll: Roll) -> list[str]:
    """Return the members whose statistics the roll feeds; NPCs have none."""
    request = roll.request
    names = [request.on_behalf_of]
    if request.opponent is not None:
        names.append(request.opponent.name)
    return [name for name in names if name in session.members]


def roll_facts(session: SessionState, roll: Roll, allowance: int) -> dict[str, Metrics]:
    """Return player -> metrics for a resolved roll, as if nothing excluded it."""
    request = roll.request
    players = players_of(session, roll)
    if roll.resolution is None or not players:
        return {}
    if request.opponent is None:
        return {players[0]: _single_facts(roll, allowance)}
    return {name: _opposed_facts(roll, name, allowance) for name in players}


def _single_facts(roll: Roll, allowance: int) -> Metrics:
    request = roll.request
    metrics: Metrics = Counter({f"rolls.{request.kind}": 1})
    resolution = roll.resolution
    if isinstance(resolution, ev.CheckResolved) and request.target is not None:
        won = bool(resolution.success)
        metrics[f"won.{request.kind}"] += won
        luck = _check_luck(_CheckKey.of(request, request.side), request.target, allowance)
        _add_luck(metrics, luck, won)
    _add_dice(metrics, _records(roll, side=0))
    _add_rerolls(metrics, roll, side=0)
    return metrics


def _opposed_facts(roll: Roll, name: str, allowance: int) -> Metrics:
    """Return one side's metrics; ``allowance`` is the request's side's, as requested."""
    request = roll.request
    assert request.opponent is not None and isinstance(roll.resolution, ev.CheckResolved)
    side = 0 if name == request.side.name else 1
    won = roll.resolution.winner == name
    metrics: Metrics = Counter({"rolls.opposed": 1, "won.opposed": int(won)})
    theirs = request.opponent_rerolls_granted or 0
    ours, opponent = _CheckKey.of(request, request.side), _CheckKey.of(request, request.opponent)
    odds = _opposed_luck(ours, opponent, allowance, theirs)
    _add_luck(metrics, None if odds is None else odds[side], won)
    _add_dice(metrics, _records(roll, side=side))
    _add_rerolls(metrics, roll, side=side)
    return metrics


@dataclass(frozen=True, slots=True)
class _CheckKey:
    # The canonical shape of one side of a check: what its odds depend on. Names and
    # labels are left out (they change no die), so a session's few checks repeat many
    # times over and their odds, computed once, are reused.
    check: bool
    median: bool
    exploding: bool
    expression: str
    advantage: tuple[int, ...]
    disadvantage: tuple[int, ...]
    eased: tuple[int, ...]
    hindered: tuple[int, ...]

    @classmethod
    def of(cls, request: ev.RollRequested, side: ev.CheckSide) -> _CheckKey:
        return cls(
            RollKind(request.kind) in CHECK_KINDS,
            request.median,
            request.exploding,
            side.expression,
            _amounts(side.advantage),
            _amounts(side.disadvantage),
            _amounts(side.eased),
            _amounts(side.hindered),
        )


def _amounts(amounts: tuple[ev.Amount, ...]) -> tuple[int, ...]:
    return tuple(a.amount for a in amounts)


def _modifiers(amounts: tuple[int, ...]) -> tuple[Modifier, ...]:
    return tuple(Modifier(amount) for amount in amounts)


@lru_cache(maxsize=4096)
def _spec(key: _CheckKey) -> RollSpec:
    # The spec of a canonical shape: as spec_of builds it, less the labels.
    return build_spec(
        parse(key.expression),
        check=key.check,
        advantage=_modifiers(key.advantage),
        disadvantage=_modifiers(key.disadvantage),
        median=key.median,
        eased=_modifiers(key.eased),
        hindered=_modifiers(key.hindered),
        exploding=key.exploding,
    )


Luck = tuple[int, int]  # expected and variance, in units of 1/SCALE


def _luck(probability: Fraction) -> Luck:
    return round(probability * SCALE), round(probability * (1 - probability) * SCALE)


@lru_cache(maxsize=4096)
def _check_luck(key: _CheckKey, target: int, allowance: int) -> Luck | None:
    # A roll too large for exact odds is counted but left out of luck (metric luck.unrated).
    try:
        return _luck(success_probability(_spec(key), target, allowance))
    except RollError:
        return None


@lru_cache(maxsize=4096)
def _opposed_luck(
    key: _CheckKey, opponent: _CheckKey, rerolls: int, opponent_rerolls: int
) -> tuple[Luck, Luck] | None:
    try:
        odds = opposed_odds(_spec(key), _spec(opponent), rerolls, opponent_rerolls)
    except RollError:
        return None
    return _luck(odds.win), _luck(odds.lose)


def _add_luck(metrics: Metrics, luck: Luck | None, won: bool) -> None:
    if luck is None:
        metrics["luck.unrated"] += 1
        return
    expected, variance = luck
    metrics["luck.rated"] += 1
    metrics["luck.observed"] += int(won)
    metrics["luck.expected_e12"] += expected
    metrics["luck.variance_e12"] += variance


def _records(roll: Roll, side: int) -> list[tuple[int, ev.DieRecord]]:
    # (round, die) of every die one side drew, rerolled ones included.
    records: list[tuple[int, ev.DieRecord]] = []
    for event in roll.dice:
        if event.side != side:
            continue
        if isinstance(event, ev.DiceRolled):
            records.extend((event.round, die) for die in event.dice)
        else:
            records.append((event.round, event.die))
    return records


def _add_dice(metrics: Metrics, records: list[tuple[int, ev.DieRecord]]) -> None:
    chains: Counter[tuple[int, int | None]] = Counter()
    for round_, die in records:
        metrics[f"face.{die.sides}.{die.face}"] += 1
        metrics[f"source.{die.source}"] += 1
        if die.reason == "explosion":
            metrics["explosions"] += 1
            # An explosion's parent is the base die of its chain, and a chain is as long
            # as its last step; die indexes restart in each round of an opposed check.
            key = (round_, die.parent)
            chains[key] = max(chains[key], die.step)
    for length in chains.values():
        metrics[f"chain.{length}"] += 1


def _add_rerolls(metrics: Metrics, roll: Roll, side: int) -> None:
    """Count one side's rerolls and what they gained: in each round it rerolled in, its
    total after them minus its total before the first (an opposed check's side may reroll
    in several rounds, since what it leaves carries into a tied round)."""
    spent = roll.rerolls_of(side)
    if not spent:
        return
    request = roll.request
    asked = request.side if side == 0 or request.opponent is None else request.opponent
    spec = _spec(_CheckKey.of(request, asked))
    metrics["rerolls.spent"] += spent
    for number in range(1, rounds_of(roll) + 1):
        events = side_events(roll, side, number)
        first = next((i for i, e in enumerate(events) if isinstance(e, ev.DieRerolled)), None)
        if first is not None:
            before = replay_events(spec, events[:first]).total
            metrics["rerolls.gain"] += replay_events(spec, events).total - before

"""What one resolved roll adds to each of its players' statistics (metric -> amount).

Every amount is an integer so that sums are exact and associative: a projection updated
batch by batch holds the same numbers as one rebuilt in a single pass. Probabilities are
kept in units of 10**-12 (``SCALE``), rounded once per check.
"""

from __future__ import annotations

from collections import Counter
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
    action = state.actions.get(request.action_id)
    return reroll_allowance(
        request.kind,
        request.opponent is not None and request.opponent_rerolls_granted is None,
        (request.rerolls_granted, request.reroll_scope),
        None if action is None else (action.remaining, action.scope.value),
    )


def reroll_allowance(
    kind: str,
    opposed_without_rerolls: bool,
    granted: tuple[int, str],
    action: tuple[int, str] | None,
) -> int:
    """Return the rerolls a request of ``kind`` may spend (R11), from plain values.

    ``granted`` is what the request grants with its scope, ``action`` what its action has
    left with its scope when an earlier request opened it. One function for the domain's
    fold and the store's lean one, so the two cannot drift apart.
    """
    roll_kind(kind)  # an unknown kind is refused whatever the request
    if opposed_without_rerolls:
        return 0  # an opposed check of version 1 took no rerolls
    left, scope = granted if action is None else action
    return left if covers(scope, kind) else 0


# Sessions use a handful of kinds and scopes: their enum lookups are made once each (an
# unknown one still raises ValueError every time, since errors are not cached).
@lru_cache(maxsize=64)
def roll_kind(kind: str) -> RollKind:
    """Return the kind of a roll by its value; raise ValueError for an unknown one."""
    return RollKind(kind)


@lru_cache(maxsize=256)
def covers(scope: str, kind: str) -> bool:
    """Tell whether a reroll allowance of ``scope`` may be spent on a roll of ``kind``."""
    return RerollScope(scope).covers(roll_kind(kind))


def players_of(session: SessionState, roll: Roll) -> list[str]:
    """Return the members whose statistics the roll feeds; NPCs have none."""
    request = roll.request
    names = [request.on_behalf_of]
    if request.opponent is not None:
        names.append(request.opponent.name)
    return [name for name in names if name in session.members]


def roll_facts(
    session: SessionState, roll: Roll, allowance: int, players: list[str] | None = None
) -> dict[str, Metrics]:
    """Return player -> metrics for a resolved roll, as if nothing excluded it.

    ``players`` is ``players_of(session, roll)``, when the caller has it already.
    """
    request = roll.request
    if players is None:
        players = players_of(session, roll)
    if roll.resolution is None or not players:
        return {}
    if request.opponent is None:
        return {players[0]: _single_facts(roll, allowance)}
    return {name: _opposed_facts(roll, name, allowance) for name in players}


# Metrics are counted in a plain dict (a Counter's missing keys cost a method call each)
# and handed out as a Counter, with the same keys in the same order.
Counts = dict[str, int]


def _counter(counts: Counts) -> Metrics:
    # Counter(counts) would copy through Counter.update's Python-level checks.
    metrics: Metrics = Counter()
    dict.update(metrics, counts)
    return metrics


def _single_facts(roll: Roll, allowance: int) -> Metrics:
    request = roll.request
    metrics: Counts = {f"rolls.{request.kind}": 1}
    resolution = roll.resolution
    if isinstance(resolution, ev.CheckResolved) and request.target is not None:
        won = bool(resolution.success)
        metrics[f"won.{request.kind}"] = int(won)
        luck = check_luck(_shape(request, request.side), request.target, allowance)
        add_luck(metrics, luck, won)
    spent = _add_dice(metrics, roll, side=0)
    _add_rerolls(metrics, roll, 0, spent)
    return _counter(metrics)


def _opposed_facts(roll: Roll, name: str, allowance: int) -> Metrics:
    """Return one side's metrics; ``allowance`` is the request's side's, as requested."""
    request = roll.request
    assert request.opponent is not None and isinstance(roll.resolution, ev.CheckResolved)
    side = 0 if name == request.side.name else 1
    won = roll.resolution.winner == name
    metrics: Counts = {"rolls.opposed": 1, "won.opposed": int(won)}
    theirs = request.opponent_rerolls_granted or 0
    ours, opponent = _shape(request, request.side), _shape(request, request.opponent)
    odds = opposed_luck(ours, opponent, allowance, theirs)
    add_luck(metrics, None if odds is None else odds[side], won)
    spent = _add_dice(metrics, roll, side=side)
    _add_rerolls(metrics, roll, side, spent)
    return _counter(metrics)


# The canonical shape of one side of a check: what its odds depend on (check or plain
# roll, median, exploding, expression, and the amounts of advantage, disadvantage, eased
# and hindered). Names and labels are left out, since they change no die, so a session's
# few checks repeat many times over and their odds, computed once, are reused.
Shape = tuple[
    bool, bool, bool, str, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]
]
_IS_CHECK = {kind.value: kind in CHECK_KINDS for kind in RollKind}


def _shape(request: ev.RollRequested, side: ev.CheckSide) -> Shape:
    # Most sides have no modifiers at all: their empty tuples are taken as they are.
    return shape_of(
        request.kind,
        request.median,
        request.exploding,
        side.expression,
        _amounts(side.advantage) if side.advantage else (),
        _amounts(side.disadvantage) if side.disadvantage else (),
        _amounts(side.eased) if side.eased else (),
        _amounts(side.hindered) if side.hindered else (),
    )


def shape_of(
    kind: str,
    median: bool,
    exploding: bool,
    expression: str,
    advantage: tuple[int, ...],
    disadvantage: tuple[int, ...],
    eased: tuple[int, ...],
    hindered: tuple[int, ...],
) -> Shape:
    """Return the canonical shape of one side of a request, from its fields' values."""
    check = _IS_CHECK.get(kind)
    if check is None:
        check = RollKind(kind) in CHECK_KINDS  # refuses an unknown kind, as spec_of
    return (check, median, exploding, expression, advantage, disadvantage, eased, hindered)


def _amounts(amounts: tuple[ev.Amount, ...]) -> tuple[int, ...]:
    return tuple([a.amount for a in amounts])


def _modifiers(amounts: tuple[int, ...]) -> tuple[Modifier, ...]:
    return tuple(Modifier(amount) for amount in amounts)


@lru_cache(maxsize=4096)
def shape_spec(shape: Shape) -> RollSpec:
    """Return the spec of a canonical shape: as spec_of builds it, less the labels."""
    check, median, exploding, expression, advantage, disadvantage, eased, hindered = shape
    return build_spec(
        parse(expression),
        check=check,
        advantage=_modifiers(advantage),
        disadvantage=_modifiers(disadvantage),
        median=median,
        eased=_modifiers(eased),
        hindered=_modifiers(hindered),
        exploding=exploding,
    )


Luck = tuple[int, int]  # expected and variance, in units of 1/SCALE


def _luck(probability: Fraction) -> Luck:
    return round(probability * SCALE), round(probability * (1 - probability) * SCALE)


@lru_cache(maxsize=4096)
def check_luck(key: Shape, target: int, allowance: int) -> Luck | None:
    """Return a check's luck (expected, variance) against ``target``, or None if unrated."""
    # A roll too large for exact odds is counted but left out of luck (metric luck.unrated).
    try:
        return _luck(success_probability(shape_spec(key), target, allowance))
    except RollError:
        return None


@lru_cache(maxsize=4096)
def opposed_luck(
    key: Shape, opponent: Shape, rerolls: int, opponent_rerolls: int
) -> tuple[Luck, Luck] | None:
    """Return each side's luck in an opposed check, or None if unrated."""
    try:
        odds = opposed_odds(shape_spec(key), shape_spec(opponent), rerolls, opponent_rerolls)
    except RollError:
        return None
    return _luck(odds.win), _luck(odds.lose)


def add_luck(metrics: Counts, luck: Luck | None, won: bool) -> None:
    """Count a rated (or unrated) check's luck into a roll's metrics."""
    # Each key is new here: the roll's counts hold no luck yet.
    if luck is None:
        metrics["luck.unrated"] = 1
        return
    metrics["luck.rated"] = 1
    metrics["luck.observed"] = int(won)
    metrics["luck.expected_e12"], metrics["luck.variance_e12"] = luck


def _add_dice(metrics: Counts, roll: Roll, side: int) -> int:
    # Every die one side drew, rerolled ones included, in the order drawn; return how
    # many of its dice were rerolls (Roll.rerolls_of, counted on the way).
    chains: dict[tuple[int, int | None], int] = {}
    get = metrics.get
    rerolls = 0
    for event in roll.dice:
        if event.side != side:
            continue
        if isinstance(event, ev.DieRerolled):
            rerolls += 1
        dice = event.dice if isinstance(event, ev.DiceRolled) else (event.die,)
        for die in dice:
            face = f"face.{die.sides}.{die.face}"
            metrics[face] = get(face, 0) + 1
            source = f"source.{die.source}"
            metrics[source] = get(source, 0) + 1
            if die.reason == "explosion":
                metrics["explosions"] = get("explosions", 0) + 1
                # An explosion's parent is the base die of its chain, and a chain is as
                # long as its last step; die indexes restart in each round of an opposed
                # check.
                key = (event.round, die.parent)
                chains[key] = max(chains.get(key, 0), die.step)
    for length in chains.values():
        chain = f"chain.{length}"
        metrics[chain] = get(chain, 0) + 1
    return rerolls


def _add_rerolls(metrics: Counts, roll: Roll, side: int, spent: int) -> None:
    """Count one side's rerolls and what they gained: in each round it rerolled in, its
    total after them minus its total before the first (an opposed check's side may reroll
    in several rounds, since what it leaves carries into a tied round)."""
    if not spent:
        return
    request = roll.request
    asked = request.side if side == 0 or request.opponent is None else request.opponent
    spec = shape_spec(_shape(request, asked))
    metrics["rerolls.spent"] = spent
    for number in range(1, rounds_of(roll) + 1):
        events = side_events(roll, side, number)
        first = next((i for i, e in enumerate(events) if isinstance(e, ev.DieRerolled)), None)
        if first is not None:
            before = replay_events(spec, events[:first]).total
            gain = replay_events(spec, events).total - before
            metrics["rerolls.gain"] = metrics.get("rerolls.gain", 0) + gain

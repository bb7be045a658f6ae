"""The best chance of success with a reroll allowance, over every way to spend it (R11).

The roller sees every die, chains included, before each choice and may stop at any time.
With V_0(s) = 1 when state s meets the target, else 0, and

    V_k(s) = max(V_0(s), max over each live base die d of E[V_(k-1)(s with d rolled again)])

the answer is E[V_X(first roll)] (states in best_game.py). The states reachable with at
most X rerolls are found first, then V is worked out level by level over them; once a
level equals the one before, every later level does too, so a long allowance costs no
more than a short one. Everything is an exact Fraction.
"""

from __future__ import annotations

from bisect import bisect_left
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import comb, factorial

from diceledger.domain.dice.ast import DiceTerm, Negate, Node, Number, Operator
from diceledger.domain.dice.evaluate import apply, evaluate, postorder
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.errors import RollError
from diceledger.domain.odds.best_game import Branches, Game, Outcomes, State
from diceledger.domain.odds.expression import eased
from diceledger.domain.odds.rerolls import DiceGroup, dice_groups
from diceledger.domain.odds.weights import refuse

# Refuse once the states, the ways to leave them, and the levels worked out over them
# come to more than this many branches (a second or two of work); see docs/odds.md.
MAX_BEST_BRANCHES = 100_000
# Refuse when a single exploding die would have to pass this value to meet the target.
MAX_CAP = 200
# Refuse a longer allowance: each level's exact fractions grow, and the chance need not
# settle (against 13, each more reroll of 1d20 still helps).
MAX_BEST_REROLLS = 20

Starts = dict[State, Fraction]


def best_success(spec: RollSpec, target: int, rerolls: int) -> Fraction:
    """Return the best P(total >= target) over every way to spend ``rerolls`` (R3, R11).

    Raise RollError when the chance cannot be worked out exactly here: a total that does
    not rise with every die (dice subtracted or multiplied together), or too many states.
    """
    if rerolls < 0:
        raise RollError(f"a reroll allowance must not be negative, got {rerolls}")
    if rerolls > MAX_BEST_REROLLS:
        raise refuse(f"best-reroll odds stop at an allowance of {MAX_BEST_REROLLS}")
    answer = _answer(spec, target, rerolls)
    if isinstance(answer, str):
        raise RollError(answer)
    return answer


@lru_cache(maxsize=1024)
def _answer(spec: RollSpec, target: int, rerolls: int) -> Fraction | str:
    # A refusal is remembered too: some come only after a moment of work.
    try:
        return _solve(spec, target, rerolls)
    except RollError as error:
        return str(error)


def _solve(spec: RollSpec, target: int, rerolls: int) -> Fraction:
    root = eased(spec.expression.root, spec.ease)
    _require_rising(root)
    groups = dice_groups(spec)
    caps = tuple(_cap(root, target, groups, g) for g in range(len(groups)))
    game = Game.of(root, target, groups, caps)
    starts = _first_roll(game)
    values = _best_values(game, starts, rerolls)
    return sum((p * values.get(s, Fraction(1)) for s, p in starts.items()), Fraction(0))


def _require_rising(root: Node) -> None:
    """Refuse a total that some die can lower: capping a die's value would be wrong there."""
    stack: list[int | None] = []  # a constant part's value, or None for a part with dice
    for node in postorder(root):
        if isinstance(node, Number):
            stack.append(node.value)
        elif isinstance(node, DiceTerm):
            stack.append(None)
        elif isinstance(node, Negate):
            value = stack.pop()
            if value is None:
                raise _not_rising("dice are subtracted")
            stack.append(-value)
        else:
            right, left = stack.pop(), stack.pop()
            stack.append(_combined(node.op, left, right))


def _combined(op: Operator, left: int | None, right: int | None) -> int | None:
    if left is not None and right is not None:
        return apply(op, left, right)
    if op == "+":
        return None
    if op == "-" and right is None:
        raise _not_rising("dice are subtracted")
    if op == "*" and left is None and right is None:
        raise _not_rising("two dice totals are multiplied")
    factor = right if left is None else left
    if op in "*/" and factor is not None and factor <= 0:
        raise _not_rising("dice are multiplied or divided by a number below 1")
    return None


def _not_rising(why: str) -> RollError:
    return RollError(
        f"no best-reroll odds for this roll: {why}, so a higher die can lower the total"
    )


def _cap(root: Node, target: int, groups: tuple[DiceGroup, ...], g: int) -> int:
    """Return the least value of one die of group ``g`` that meets the target alone."""
    group = groups[g]
    highest = MAX_CAP if group.exploding else group.sides
    values = range(1, highest + 1)
    found = bisect_left(values, True, key=lambda v: _meets_alone(root, target, groups, g, v))
    if found < len(values):
        return values[found]
    if group.exploding:
        raise refuse(f"one die would have to pass {MAX_CAP} to meet the target")
    return group.sides  # a plain die never shows more: its faces need no cap


def _meets_alone(
    root: Node, target: int, groups: tuple[DiceGroup, ...], g: int, value: int
) -> bool:
    lowest = {group.term: 1 if group.rank is not None else group.count for group in groups}
    lowest[groups[g].term] += value - 1
    return evaluate(root, lowest) >= target


def _first_roll(game: Game) -> Starts:
    """Return the chance of each state the dice can show before any reroll."""
    sizes = [_group_starts_size(game, g) for g in range(len(game.groups))]
    total = 1
    for size in sizes:
        total *= size
    if total > MAX_BEST_BRANCHES:
        raise refuse(f"{total} first rolls to follow through the best rerolls")
    starts: Starts = {(): Fraction(1)}
    for g in range(len(game.groups)):
        merged: Starts = {}
        for state, p in starts.items():
            for q, entries in _group_starts(game, g):
                key = state + (entries,)
                merged[key] = merged.get(key, Fraction(0)) + p * q
        starts = merged
    return starts


def _group_starts_size(game: Game, g: int) -> int:
    group, faces = game.groups[g], len(game.fresh(g))
    return (
        faces**group.count if group.rank is not None else comb(faces + group.count - 1, group.count)
    )


def _group_starts(game: Game, g: int) -> list[tuple[Fraction, tuple[int, ...]]]:
    group, fresh = game.groups[g], game.fresh(g)
    if group.rank is None:
        return [_sorted_dice(combo) for combo in combinations_with_replacement(fresh, group.count)]
    settled: list[tuple[Fraction, tuple[int, ...]]] = []
    for combo in product(fresh, repeat=group.count):
        chance = _chance(combo)
        entries = tuple(v for _, v in combo)
        settled.extend((chance * q, e) for q, e in game.settled(g, entries))
    return settled


def _sorted_dice(combo: Outcomes) -> tuple[Fraction, tuple[int, ...]]:
    """Return the chance of a set of counting dice values in any order, and the set."""
    ways = factorial(len(combo))
    for value in {v for _, v in combo}:
        ways //= factorial(sum(1 for _, v in combo if v == value))
    return ways * _chance(combo), tuple(v for _, v in combo)


def _chance(combo: Outcomes) -> Fraction:
    chance = Fraction(1)
    for p, _ in combo:
        chance *= p
    return chance


def _best_values(game: Game, starts: Starts, rerolls: int) -> dict[State, Fraction]:
    """Return V_X of every failing state that matters (a state left out succeeds: 1)."""
    moves, failing = _reachable(game, starts, rerolls)
    values = dict.fromkeys(failing, Fraction(0))
    work = sum(len(b) for branches in moves.values() for b in branches)
    for level in range(1, rerolls + 1):
        if work * level > MAX_BEST_BRANCHES:
            raise refuse(f"more than {work * level} branches to weigh for the best rerolls")
        better = {s: _best_move(branches, values) for s, branches in moves.items()}
        if all(values[s] == v for s, v in better.items()):
            break  # a fixed point: every later level is the same
        values.update(better)
    return values


def _reachable(
    game: Game, starts: Starts, rerolls: int
) -> tuple[dict[State, list[Branches]], set[State]]:
    """Return each failing state within rerolls - 1 rerolls with its ways on, and every
    failing state within ``rerolls`` (those only reached last can no longer move)."""
    frontier = [s for s in starts if not game.succeeds(s)]
    failing = set(frontier)
    met: set[State] = set()  # states found to succeed, so as to judge each once
    moves: dict[State, list[Branches]] = {}
    size = 0
    for _ in range(rerolls):
        reached: list[State] = []
        for state in frontier:
            moves[state] = branches = list(game.rerolls(state))
            size += sum(len(b) for b in branches)
            if size > MAX_BEST_BRANCHES:
                raise refuse(f"more than {size} reroll branches to follow")
            for _, new in (pair for b in branches for pair in b):
                if new in failing or new in met:
                    continue
                if game.succeeds(new):
                    met.add(new)
                else:
                    failing.add(new)
                    reached.append(new)
        frontier = reached
    return moves, failing


def _best_move(choices: list[Branches], values: dict[State, Fraction]) -> Fraction:
    best = Fraction(0)
    for branches in choices:
        chance = sum((p * values.get(s, Fraction(1)) for p, s in branches), Fraction(0))
        best = max(best, chance)
    return best

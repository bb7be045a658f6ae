"""Exact totals under R11's default reroll policy, by following every reachable set of faces.

The policy looks only at base faces (never at explosion dice), so the state of a roll is
its live base dice in draw order, each known by its group (a dice term, or the check pool
in its term's place) and face. Ties go to the lowest draw index, and a new die is drawn
after every other, so a rerolled die moves to the end of the order. Neighbouring dice of
one group are interchangeable, so each run of them is kept sorted: that merges states
that only differ by the order of equal dice.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb, factorial, lcm

from domain.dice.ast import DiceTerm, Node
from domain.odds.dice import chain
from domain.odds.expression import evaluate
from domain.odds.weights import Weights, mixture, point, power, refuse, shift

# Refuse when following the policy would visit more than this many (state, face) branches.
MAX_REROLL_WORK = 3_000_000

Faces = tuple[int, ...]
Run = tuple[int, Faces]  # (group index, sorted faces) of neighbouring dice in draw order
State = tuple[Run, ...]


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """Base dice of one term: ``rank`` is the counted rank for the check pool, else None."""

    term: int
    count: int
    sides: int
    exploding: bool
    rank: int | None


def rerolled_total(root: Node, groups: tuple[DiceGroup, ...], rerolls: int) -> Weights:
    """Return the distribution of ``root`` after the default policy spends up to ``rerolls``."""
    _check_bounds(groups, rerolls)
    states, denom = _initial_states(groups)
    states, denom = _apply_policy(groups, states, denom, rerolls)
    by_term = {g.term: i for i, g in enumerate(groups)}
    keyed: dict[tuple[tuple[int, int], ...], int] = {}
    for state, weight in states.items():
        faces_of: list[list[int]] = [[] for _ in groups]
        for group, faces in state:
            faces_of[group].extend(faces)
        key = tuple(_value_key(g, tuple(sorted(f))) for g, f in zip(groups, faces_of, strict=True))
        keyed[key] = keyed.get(key, 0) + weight
    parts = []
    for key, weight in keyed.items():
        values = [_group_value(g, k) for g, k in zip(groups, key, strict=True)]

        def term_values(term: DiceTerm, values: list[Weights] = values) -> Weights:
            return values[by_term[term.term]]

        parts.append((weight, evaluate(root, term_values)))
    return mixture(parts, denom)


def _check_bounds(groups: tuple[DiceGroup, ...], rerolls: int) -> None:
    states = 1
    for g in groups:
        states *= comb(g.count + g.sides - 1, g.count)
    widest = max((g.sides for g in groups), default=1)
    work = states * widest * rerolls
    if work > MAX_REROLL_WORK:
        raise refuse(f"{states} sets of faces to follow through {rerolls} rerolls")


def _multisets(count: int, sides: int) -> Iterator[tuple[Faces, int]]:
    """Yield each sorted set of faces of ``count`` dice with how many rolls show it."""
    for faces in combinations_with_replacement(range(1, sides + 1), count):
        ways = factorial(count)
        for face in set(faces):
            ways //= factorial(faces.count(face))
        yield faces, ways


def _initial_states(groups: tuple[DiceGroup, ...]) -> tuple[dict[State, int], int]:
    states: dict[State, int] = {(): 1}
    denom = 1
    for index, g in enumerate(groups):
        if g.count == 0:
            continue
        options = list(_multisets(g.count, g.sides))
        states = {
            s + ((index, faces),): w * ways for s, w in states.items() for faces, ways in options
        }
        denom *= g.sides**g.count
    return states, denom


def _apply_policy(
    groups: tuple[DiceGroup, ...], states: dict[State, int], denom: int, rerolls: int
) -> tuple[dict[State, int], int]:
    # One common step denominator keeps every branch an integer weight.
    step = lcm(*(g.sides for g in groups)) if groups else 1
    settled: dict[State, int] = {}
    for _ in range(rerolls):
        moving: dict[State, int] = {}
        accepted: dict[State, int] = {}
        for state, weight in states.items():
            choice = _policy_choice(groups, state)
            if choice is None:
                accepted[state] = accepted.get(state, 0) + weight
                continue
            run, sides = choice
            share = weight * (step // sides)
            for face in range(1, sides + 1):
                new = _rerolled(state, run, face)
                moving[new] = moving.get(new, 0) + share
        if not moving:
            states = accepted
            break
        # A reroll refines the denominator; earlier weights are scaled to match it.
        settled = {s: w * step for s, w in settled.items()}
        for state, weight in accepted.items():
            settled[state] = settled.get(state, 0) + weight * step
        denom *= step
        states = moving
        if len(states) * step > MAX_REROLL_WORK:
            raise refuse(f"{len(states)} sets of faces to follow through {rerolls} rerolls")
    for state, weight in states.items():
        settled[state] = settled.get(state, 0) + weight
    return settled, denom


def _policy_choice(groups: tuple[DiceGroup, ...], state: State) -> tuple[int, int] | None:
    """Return (run index, sides) of the die R11's default policy rerolls, or None."""
    best: tuple[int, int] | None = None
    lowest = 0
    for index, (group, faces) in enumerate(state):
        if best is None or faces[0] < lowest:  # strict: ties go to the earlier die
            best, lowest = (index, groups[group].sides), faces[0]
    if best is None or 2 * lowest >= best[1] + 1:
        return None
    return best


def _rerolled(state: State, run: int, face: int) -> State:
    """Return the state after the lowest die of ``run`` is replaced by a new die at the end."""
    group, faces = state[run]
    runs = list(state[:run])
    rest = faces[1:]
    if rest:
        runs.append((group, rest))
    for later in state[run + 1 :]:
        if runs and runs[-1][0] == later[0]:  # a run emptied: its neighbours now touch
            runs[-1] = (later[0], tuple(sorted(runs[-1][1] + later[1])))
        else:
            runs.append(later)
    if runs and runs[-1][0] == group:
        runs[-1] = (group, tuple(sorted(runs[-1][1] + (face,))))
    else:
        runs.append((group, (face,)))
    return tuple(runs)


def _value_key(group: DiceGroup, faces: Faces) -> tuple[int, int]:
    """Reduce faces to what the total depends on: (fixed part, dice that explode)."""
    if group.rank is not None:
        face = faces[len(faces) - 1 - group.rank]
        return (face, 1 if group.exploding and face == group.sides else 0)
    if not group.exploding:
        return (sum(faces), 0)
    top = faces.count(group.sides)
    return (sum(faces), top)


def _group_value(group: DiceGroup, key: tuple[int, int]) -> Weights:
    fixed, exploded = key
    if exploded == 0:
        return point(fixed)
    return shift(power(chain(group.sides), exploded), fixed)

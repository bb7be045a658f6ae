"""The sets of base faces R11's default policy can reach, with their exact weights.

The policy looks only at base faces, never at explosion dice. It takes the lowest face
(ties: the lowest draw index) and rerolls that die if the face is below its die's average;
a new die is drawn after every other, so a rerolled die goes last in draw order.

A state keeps only what a later choice can depend on:

- for each *low* face f (2f < the largest die size + 1): the groups of the dice showing f,
  in draw order. Ties are only ever broken between dice of one face, so the order of dice
  with different faces never matters;
- for each group, its *high* faces, sorted. When the lowest die is high it is not below its
  own average either, so the policy stops, whatever the order of high dice.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations_with_replacement
from math import comb, factorial, lcm

from diceledger.domain.odds.weights import refuse

# Refuse once following the policy would take more than this many (state, face) branches
# in all (a few seconds of work); see docs/odds.md.
MAX_REROLL_BRANCHES = 400_000

Faces = tuple[int, ...]
# state[f - 1] for each low face f: group ids in draw order; then, per group, high faces.
State = tuple[tuple[int, ...], ...]


def final_states(
    sizes: tuple[int, ...], counts: tuple[int, ...], rerolls: int
) -> tuple[dict[State, int], int]:
    """Return state -> weight over a common denominator once the policy is done."""
    spent, denom = final_states_spent(sizes, counts, rerolls)
    settled: dict[State, int] = {}
    for (_, state), weight in spent.items():
        settled[state] = settled.get(state, 0) + weight
    return settled, denom


def final_states_spent(
    sizes: tuple[int, ...], counts: tuple[int, ...], rerolls: int
) -> tuple[dict[tuple[int, State], int], int]:
    """Return (rerolls spent, state) -> weight over a common denominator once done."""
    starting = 1
    for sides, count in zip(sizes, counts, strict=True):
        starting *= comb(count + sides - 1, count)
    widest = max(sizes, default=1)
    if starting * widest > MAX_REROLL_BRANCHES:
        raise refuse(f"{starting} sets of faces to follow through {rerolls} rerolls")
    lows = widest // 2  # faces 1..lows are low
    states, denom = _initial_states(sizes, counts, lows)
    step = lcm(*sizes) if sizes else 1  # one denominator for every branch of a step
    settled: dict[tuple[int, State], int] = {}
    branches = 0
    for spent in range(rerolls):
        branches += len(states) * widest
        if branches > MAX_REROLL_BRANCHES:
            raise refuse(f"more than {branches} reroll branches to follow")
        moving: dict[State, int] = {}
        accepted: dict[State, int] = {}
        for state, weight in states.items():
            choice = _policy_choice(sizes, state, lows)
            if choice is None:
                accepted[state] = accepted.get(state, 0) + weight
                continue
            group, remaining = choice
            share = weight * (step // sizes[group])
            for face in range(1, sizes[group] + 1):
                new = _with_new_die(remaining, group, face, lows)
                moving[new] = moving.get(new, 0) + share
        if not moving:
            states = accepted
            break
        # A reroll refines the denominator; earlier weights are scaled to match it.
        settled = {s: w * step for s, w in settled.items()}
        for state, weight in accepted.items():
            key = (spent, state)
            settled[key] = settled.get(key, 0) + weight * step
        denom *= step
        states = moving
    else:
        spent = rerolls  # every step rerolled something: the states left spent them all
    for state, weight in states.items():
        key = (spent, state)
        settled[key] = settled.get(key, 0) + weight
    return settled, denom


def faces_by_group(state: State, groups: int) -> list[Faces]:
    """Return every live base face of each group, sorted."""
    lows = len(state) - groups
    faces: list[list[int]] = [[] for _ in range(groups)]
    for face in range(1, lows + 1):
        for group in state[face - 1]:
            faces[group].append(face)
    return [tuple(low) + state[lows + g] for g, low in enumerate(faces)]


def _multisets(count: int, sides: int) -> Iterator[tuple[Faces, int]]:
    """Yield each sorted set of faces of ``count`` dice with how many rolls show it."""
    for faces in combinations_with_replacement(range(1, sides + 1), count):
        ways = factorial(count)
        for face in set(faces):
            ways //= factorial(faces.count(face))
        yield faces, ways


def _initial_states(
    sizes: tuple[int, ...], counts: tuple[int, ...], lows: int
) -> tuple[dict[State, int], int]:
    # Built group by group: low faces keep draw order, as later groups are drawn later.
    partial: dict[tuple[tuple[tuple[int, ...], ...], tuple[Faces, ...]], int] = {
        (((),) * lows, ()): 1
    }
    denom = 1
    for group, (sides, count) in enumerate(zip(sizes, counts, strict=True)):
        options = list(_multisets(count, sides))
        merged: dict[tuple[tuple[tuple[int, ...], ...], tuple[Faces, ...]], int] = {}
        for (low, highs), weight in partial.items():
            for faces, ways in options:
                new_low = tuple(ids + (group,) * faces.count(f + 1) for f, ids in enumerate(low))
                high = tuple(f for f in faces if f > lows)
                key = (new_low, highs + (high,))
                merged[key] = merged.get(key, 0) + weight * ways
        partial = merged
        denom *= sides**count
    return {low + highs: w for (low, highs), w in partial.items()}, denom


def _policy_choice(sizes: tuple[int, ...], state: State, lows: int) -> tuple[int, State] | None:
    """Return the group of the die to reroll and the state without it, or None to accept."""
    for face in range(1, lows + 1):
        ids = state[face - 1]
        if ids:
            group = ids[0]  # the earliest die showing the lowest face
            if 2 * face >= sizes[group] + 1:
                return None
            return group, state[: face - 1] + (ids[1:],) + state[face:]
    return None  # every die is high: the lowest is not below its own average


def _with_new_die(state: State, group: int, face: int, lows: int) -> State:
    if face <= lows:
        return state[: face - 1] + (state[face - 1] + (group,),) + state[face:]
    index = lows + group
    high = tuple(sorted(state[index] + (face,)))
    return state[:index] + (high,) + state[index + 1 :]

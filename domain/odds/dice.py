"""Exact distributions of single dice, explosion chains and check-die pools (R7, R8, R12)."""

from __future__ import annotations

from functools import cache, lru_cache
from math import comb

from diceledger.domain.dice.ladder import step_down
from diceledger.domain.odds.weights import Weights, point, power, uniform

# A chain stops adding dice once the chance of reaching the next one, given that the chain
# started, falls below 1 / CUT_DENOMINATOR (1e-15); see docs/odds.md.
CUT_DENOMINATOR = 10**15


def chain_sizes(sides: int) -> tuple[int, ...]:
    """Return the sizes of the explosion dice an exploding ``sides`` die may add, in order.

    The list ends at the first die whose every face leaves less than 1e-15 of the chain's
    probability still exploding: that die's maximum is kept and not exploded further.
    """
    sizes: list[int] = []
    size, reach = sides, 1
    while reach <= CUT_DENOMINATOR:
        sizes.append(size)
        reach *= size
        size = step_down(size)
    return tuple(sizes)


@cache
def chain(sides: int) -> Weights:
    """Return the sum of the explosion dice added after a ``sides`` die shows its maximum.

    Each die of the chain that shows its maximum adds the next one (R12); the last die of
    ``chain_sizes`` keeps its maximum, and that folded tail is the chain's ``cut`` weight.
    """
    sizes = chain_sizes(sides)
    denom = 1
    for size in sizes:
        denom *= size
    table: dict[int, int] = {}
    prefix, reach = 0, denom
    for size in sizes:
        share = reach // size
        for face in range(1, size):
            table[prefix + face] = table.get(prefix + face, 0) + share
        prefix, reach = prefix + size, share
    table[prefix] = table.get(prefix, 0) + reach
    return Weights(table, denom, cut=reach)


def with_chain(faces: Weights, sides: int) -> Weights:
    """Return a counted die's value: its face, plus the chain when the face is the maximum."""
    tail = chain(sides)
    table = {face: w * tail.denom for face, w in faces.table.items() if face != sides}
    top = faces.table.get(sides, 0)
    for value, w in tail.table.items():
        total = sides + value
        table[total] = table.get(total, 0) + top * w
    return Weights(table, faces.denom * tail.denom, top * tail.cut)


@lru_cache(maxsize=256)
def die(sides: int, exploding: bool) -> Weights:
    """Return the value of one counted die: a plain face, or a face with its chain (R12)."""
    faces = uniform(sides)
    return with_chain(faces, sides) if exploding else faces


@lru_cache(maxsize=256)
def dice_sum(count: int, sides: int, exploding: bool) -> Weights:
    """Return the total of ``count`` counted dice of ``sides`` sides."""
    if count == 0:
        return point(0)
    return power(die(sides, exploding), count)


@lru_cache(maxsize=256)
def counted_face(pool: int, sides: int, rank: int) -> Weights:
    """Return the face at ``rank`` (0 = highest) of ``pool`` dice, from the binomial CDF.

    P(counted <= f) is the chance that at least ``pool - rank`` dice show f or less, so
    no pool is ever enumerated.
    """
    needed = pool - rank
    table: dict[int, int] = {}
    below = 0
    for face in range(1, sides + 1):
        at_most = sum(
            comb(pool, j) * face**j * (sides - face) ** (pool - j) for j in range(needed, pool + 1)
        )
        if at_most > below:
            table[face] = at_most - below
        below = at_most
    return Weights(table, sides**pool)


@lru_cache(maxsize=256)
def check_die(pool: int, sides: int, rank: int, exploding: bool) -> Weights:
    """Return the check die's value: the counted face of the pool, with its chain (R7, R8)."""
    faces = counted_face(pool, sides, rank)
    return with_chain(faces, sides) if exploding else faces

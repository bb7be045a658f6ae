"""Exact discrete distributions as integer weights over one common denominator.

Working in integers and dividing once at the end keeps every probability exact while
avoiding a Fraction (and its gcd) per arithmetic step, which is what makes the engine fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm

from diceledger.domain.errors import RollError
from diceledger.domain.odds.polynomials import polymul

# Above this many (outcome, outcome) pairs a product of two random totals is refused.
MAX_PRODUCT_PAIRS = 1_000_000
# Above this many bits of weights (outcomes x bits per weight) a result is refused.
MAX_RESULT_BITS = 100_000_000


def refuse(reason: str) -> RollError:
    """Build the error for a roll whose exact odds would be too costly to compute."""
    return RollError(f"too many dice for exact odds: {reason}")


@dataclass(frozen=True, slots=True)
class Weights:
    """Outcome -> integer weight; probability = weight / denom (the weights sum to denom).

    ``cut`` is the weight of outcomes in which some explosion chain was cut short and its
    tail folded onto its last die (see docs/odds.md): those totals are lower bounds.
    """

    table: dict[int, int]
    denom: int
    cut: int = 0

    @property
    def is_constant(self) -> bool:
        """Tell whether the distribution is a single certain outcome."""
        return len(self.table) == 1

    def constant(self) -> int:
        """Return the single outcome of a constant distribution."""
        (value,) = self.table
        return value


def point(value: int) -> Weights:
    """Return the distribution of a number that is certain."""
    return Weights({value: 1}, 1)


def uniform(sides: int) -> Weights:
    """Return the distribution of one plain die of ``sides`` sides."""
    return Weights(dict.fromkeys(range(1, sides + 1), 1), sides)


def shift(dist: Weights, amount: int) -> Weights:
    """Return the distribution of ``total + amount``."""
    if amount == 0:
        return dist
    return Weights({v + amount: w for v, w in dist.table.items()}, dist.denom, dist.cut)


def negate(dist: Weights) -> Weights:
    """Return the distribution of ``-total``."""
    return Weights({-v: w for v, w in dist.table.items()}, dist.denom, dist.cut)


def scale(dist: Weights, factor: int) -> Weights:
    """Return the distribution of ``total * factor`` for a constant factor."""
    if factor == 0:
        return point(0)
    return Weights({v * factor: w for v, w in dist.table.items()}, dist.denom, dist.cut)


def floor_divide(dist: Weights, divisor: int) -> Weights:
    """Return the distribution of ``total // divisor``, rounding down as R10 says."""
    if divisor == 0:
        raise RollError("division by zero")
    table: dict[int, int] = {}
    for v, w in dist.table.items():
        q = v // divisor
        table[q] = table.get(q, 0) + w
    if len(table) == 1:
        # A certain result is exact, whatever chains were cut on the way.
        return point(next(iter(table)))
    return Weights(table, dist.denom, dist.cut)


def _combined_cut(a: Weights, b: Weights) -> int:
    """Return the weight of pairs in which either side was cut (independent sides)."""
    if not a.cut and not b.cut:
        return 0
    return a.denom * b.denom - (a.denom - a.cut) * (b.denom - b.cut)


def add(a: Weights, b: Weights) -> Weights:
    """Return the distribution of the sum of two independent totals."""
    if a.is_constant:
        return shift(b, a.constant())
    if b.is_constant:
        return shift(a, b.constant())
    low_a, high_a = min(a.table), max(a.table)
    low_b, high_b = min(b.table), max(b.table)
    span = (high_a - low_a + 1) + (high_b - low_b + 1)
    pairs = len(a.table) * len(b.table)
    if pairs <= 64 or pairs < span:
        table = _pairwise_sum(a.table, b.table)
    else:
        bits = _weight_bits(a) + _weight_bits(b) + min(len(a.table), len(b.table)).bit_length()
        if span * bits > MAX_RESULT_BITS:
            raise refuse(f"about {span} totals with {bits}-bit weights")
        dense = polymul(_dense(a.table, low_a, high_a), _dense(b.table, low_b, high_b), bits)
        low = low_a + low_b
        table = {low + i: w for i, w in enumerate(dense) if w}
    return Weights(table, a.denom * b.denom, _combined_cut(a, b))


def multiply(a: Weights, b: Weights) -> Weights:
    """Return the distribution of the product of two independent totals."""
    if a.is_constant:
        return scale(b, a.constant())
    if b.is_constant:
        return scale(a, b.constant())
    pairs = len(a.table) * len(b.table)
    if pairs > MAX_PRODUCT_PAIRS:
        raise refuse(f"a product of two dice totals with {pairs} outcome pairs")
    table: dict[int, int] = {}
    for va, wa in a.table.items():
        for vb, wb in b.table.items():
            p = va * vb
            table[p] = table.get(p, 0) + wa * wb
    return Weights(table, a.denom * b.denom, _combined_cut(a, b))


def power(dist: Weights, count: int) -> Weights:
    """Return the distribution of the sum of ``count`` independent copies."""
    result = point(0)
    base = dist
    while count:
        if count & 1:
            result = add(result, base)
        count >>= 1
        if count:
            base = add(base, base)
    return result


def mixture(parts: list[tuple[int, Weights]], denom: int) -> Weights:
    """Return the mixture of distributions, each chosen with weight ``w / denom``."""
    common = 1
    for _, dist in parts:
        common = lcm(common, dist.denom)
    table: dict[int, int] = {}
    cut = 0
    for weight, dist in parts:
        factor = weight * (common // dist.denom)
        for v, w in dist.table.items():
            table[v] = table.get(v, 0) + w * factor
        cut += dist.cut * factor
    return Weights(table, denom * common, cut)


def _pairwise_sum(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    table: dict[int, int] = {}
    for va, wa in a.items():
        for vb, wb in b.items():
            s = va + vb
            table[s] = table.get(s, 0) + wa * wb
    return table


def _dense(table: dict[int, int], low: int, high: int) -> list[int]:
    out = [0] * (high - low + 1)
    for v, w in table.items():
        out[v - low] = w
    return out


def _weight_bits(dist: Weights) -> int:
    return max(dist.table.values()).bit_length()

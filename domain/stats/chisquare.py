"""Pearson's chi-square goodness-of-fit test for dice faces, without SciPy."""

from __future__ import annotations

import math
from collections.abc import Sequence

_EPSILON = 1e-14
_MAX_ITERATIONS = 10_000


def statistic(observed: Sequence[int], expected: Sequence[float]) -> float:
    """Return sum((o - e)^2 / e) over the categories."""
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))


def survival(x: float, df: int) -> float:
    """Return P(X >= x) for X chi-square distributed with ``df`` degrees of freedom."""
    if x <= 0:
        return 1.0
    return _upper_gamma_regularized(df / 2, x / 2)


def uniform_p_value(counts: Sequence[int]) -> float:
    """Return the p-value of ``counts`` (one per face) under a fair die."""
    n = sum(counts)
    expected = [n / len(counts)] * len(counts)
    return survival(statistic(counts, expected), len(counts) - 1)


def _upper_gamma_regularized(a: float, x: float) -> float:
    # Series for the lower function when x is small, continued fraction otherwise:
    # each converges fast on its side of a + 1.
    if x < a + 1:
        return 1.0 - _lower_series(a, x)
    return _upper_continued_fraction(a, x)


def _lower_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_ITERATIONS):
        denominator += 1
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_continued_fraction(a: float, x: float) -> float:
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPSILON:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h

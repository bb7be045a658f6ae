"""How many rolls a chi-square test needs to notice a die that favours one face twice.

The loaded die of S sides shows one face with probability 2/(S+1) and each other face with
1/(S+1). Pearson's statistic on n rolls of it follows, approximately, a noncentral
chi-square with S-1 degrees of freedom and noncentrality n * S * sum((p_i - 1/S)^2). The
answer is the smallest n whose test at significance ``ALPHA`` rejects fairness with
probability ``POWER``.
"""

from __future__ import annotations

import math
from functools import cache

from diceledger.domain.stats.chisquare import survival

ALPHA = 0.05
POWER = 0.8
_POISSON_TERMS = 2000


def critical_value(df: int, alpha: float = ALPHA) -> float:
    """Return x with P(X >= x) = alpha for a chi-square X with ``df`` degrees of freedom."""
    low, high = 0.0, float(df) + 10.0
    while survival(high, df) > alpha:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if survival(middle, df) > alpha else (low, middle)
    return (low + high) / 2


def noncentral_survival(x: float, df: int, noncentrality: float) -> float:
    """Return P(X >= x) for a noncentral chi-square, as a Poisson mixture of central ones."""
    half = noncentrality / 2
    total = 0.0
    for j in range(_POISSON_TERMS):
        weight = (
            math.exp(-half + j * math.log(half) - math.lgamma(j + 1)) if half else float(j == 0)
        )
        total += weight * survival(x, df + 2 * j)
        if j > half and weight < 1e-15:
            break
    return total


def loaded_noncentrality(sides: int) -> float:
    """Return the noncentrality one roll of the twice-favouring die adds."""
    favoured, other, fair = 2 / (sides + 1), 1 / (sides + 1), 1 / sides
    return sides * ((favoured - fair) ** 2 + (sides - 1) * (other - fair) ** 2)


@cache
def rolls_needed(sides: int, alpha: float = ALPHA, power: float = POWER) -> int:
    """Return the rolls needed to detect a die of ``sides`` favouring one face twice."""
    df = sides - 1
    critical = critical_value(df, alpha)
    per_roll = loaded_noncentrality(sides)

    def detects(rolls: int) -> bool:
        return noncentral_survival(critical, df, rolls * per_roll) >= power

    high = sides
    while not detects(high):
        high *= 2
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if detects(middle) else (middle, high)
    return high

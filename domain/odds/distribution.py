"""The exact distribution of a roll's total, as users of the odds see it."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping
from fractions import Fraction

from diceledger.domain.odds.weights import Weights


class Distribution(Mapping[int, Fraction]):
    """Total -> exact probability, iterated in increasing order of total.

    ``truncated_mass`` is the chance that some explosion chain went past the 1e-15 cut;
    those outcomes are counted at the total the chain had reached, so every probability
    here is exact to within that mass (0 when nothing was cut).
    """

    __slots__ = ("_weights", "_totals", "_tail")

    def __init__(self, weights: Weights) -> None:
        self._weights = weights
        self._totals = sorted(weights.table)
        self._tail: list[int] | None = None  # _tail[i]: weight of totals >= _totals[i]

    def __getitem__(self, total: int) -> Fraction:
        return Fraction(self._weights.table[total], self._weights.denom)

    def __iter__(self) -> Iterator[int]:
        return iter(self._totals)

    def __len__(self) -> int:
        return len(self._totals)

    def __repr__(self) -> str:
        return f"Distribution({len(self)} totals {self.lowest}..{self.highest})"

    @property
    def lowest(self) -> int:
        """Return the smallest possible total."""
        return self._totals[0]

    @property
    def highest(self) -> int:
        """Return the largest total kept (the cut tail is counted here or below)."""
        return self._totals[-1]

    @property
    def denominator(self) -> int:
        """Return the common denominator of every probability."""
        return self._weights.denom

    def weight(self, total: int) -> int:
        """Return the integer numerator of P(total) over ``denominator``."""
        return self._weights.table.get(total, 0)

    @property
    def mean(self) -> Fraction:
        """Return the expected total."""
        table = self._weights.table
        return Fraction(sum(v * w for v, w in table.items()), self._weights.denom)

    @property
    def truncated_mass(self) -> Fraction:
        """Return the probability of outcomes whose explosion chain was cut short."""
        return Fraction(self._weights.cut, self._weights.denom)

    def at_least(self, total: int) -> Fraction:
        """Return P(total >= ``total``), e.g. the chance that a check meets its target."""
        if self._tail is None:
            tail, running = [0] * len(self._totals), 0
            for i in range(len(self._totals) - 1, -1, -1):
                running += self._weights.table[self._totals[i]]
                tail[i] = running
            self._tail = tail
        i = bisect_left(self._totals, total)
        return Fraction(self._tail[i] if i < len(self._tail) else 0, self._weights.denom)

    def at_most(self, total: int) -> Fraction:
        """Return P(total <= ``total``)."""
        return 1 - self.at_least(total + 1)

"""Group a distribution's totals into a few rows for display, tails folded in."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from diceledger.domain.odds.distribution import Distribution


@dataclass(frozen=True, slots=True)
class Bin:
    """Totals ``low``..``high`` (None: unbounded tail) and their probability."""

    low: int | None
    high: int | None
    probability: Fraction
    meets_target: bool

    @property
    def label(self) -> str:
        """Return the totals as text: ``7``, ``7-9``, ``<=6`` or ``>=40``."""
        if self.low is None:
            return f"<={self.high}"
        if self.high is None:
            return f">={self.low}"
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


def bins(dist: Distribution, max_rows: int, tail: Fraction, target: int | None = None) -> list[Bin]:
    """Return at most ``max_rows`` equal-width bins, plus rows for tails lighter than ``tail``.

    With a target, a row edge falls on it, so no row mixes successes and failures.
    """
    totals = list(dist)
    low, high = totals[0], totals[-1]
    if len(totals) > max_rows:
        low = next(t for t in totals if dist.at_most(t) >= tail)
        high = next(t for t in reversed(totals) if dist.at_least(t) >= tail)
    width = max(1, math.ceil((high - low + 1) / max_rows))
    if target is not None and low < target <= high:
        low = target - math.ceil((target - low) / width) * width
    rows: list[Bin] = []
    if low > totals[0]:
        rows.extend(_tail(dist, None, low - 1, target))
    for start in range(low, high + 1, width):
        end = min(start + width - 1, high)
        mass = dist.at_least(start) - dist.at_least(end + 1)
        rows.append(Bin(start, end, mass, _meets(target, start)))
    if high < totals[-1]:
        rows.extend(_tail(dist, high + 1, None, target))
    return rows


def _tail(dist: Distribution, low: int | None, high: int | None, target: int | None) -> list[Bin]:
    """Return a tail as one row, or as two when the target falls inside it."""
    first = dist.lowest if low is None else low
    last = dist.highest if high is None else high
    if target is not None and first < target <= last:
        return _tail(dist, low, target - 1, None) + _tail(dist, target, high, target)
    mass = dist.at_least(first) - dist.at_least(last + 1)
    return [Bin(low, high, mass, _meets(target, first))]


def _meets(target: int | None, lowest: int) -> bool:
    return target is not None and lowest >= target

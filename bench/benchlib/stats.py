"""Medians, percentiles and ratios over repeated rounds."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    """Return the median of a non-empty sequence."""
    return statistics.median(values)


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Return the nearest-rank percentile of already sorted values (fraction in 0..1)."""
    if not sorted_values:
        return float("nan")
    rank = max(0, min(len(sorted_values) - 1, round(fraction * len(sorted_values)) - 1))
    return sorted_values[rank]


def ratio(numerator: float, denominator: float) -> float:
    """Return numerator / denominator rounded for printing (nan when the baseline is 0)."""
    return round(numerator / denominator, 3) if denominator else float("nan")


def median_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """Return the median of per-round ratios, each against the baseline of its own round.

    Rounds are interleaved, so a noisy neighbour slows both sides of a round alike.
    """
    return round(median([n / d for n, d in zip(numerators, denominators, strict=True)]), 3)

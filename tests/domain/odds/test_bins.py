"""Histogram bins: few rows, nothing lost, and no row straddles the target (R3)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.odds import distribution
from diceledger.domain.odds.bins import bins


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["1d20+5", "4d6", "3d6n", "1d4n", "(2d6+3)/2", "2d20-1d12"]),
    st.one_of(st.none(), st.integers(-5, 40)),
)
def test_bins_keep_every_chance_and_split_at_the_target(text: str, target: int | None) -> None:
    dist = distribution(RollSpec(parse(text)))
    rows = bins(dist, max_rows=20, tail=Fraction(1, 2000), target=target)
    assert len(rows) <= 23  # 20 bins, two tails, one tail split at the target
    assert sum(row.probability for row in rows) == 1
    for row in rows:
        lowest = dist.lowest if row.low is None else row.low
        highest = dist.highest if row.high is None else row.high
        if target is not None and row.meets_target:
            assert lowest >= target
        elif target is not None:
            assert highest < target


def test_r3_bin_labels_read_as_ranges_and_tails() -> None:
    dist = distribution(RollSpec(parse("1d20+5")))
    labels = [row.label for row in bins(dist, max_rows=10, tail=Fraction(1, 2000), target=15)]
    assert labels[-1].startswith(">=")
    assert "15-19" in labels

"""The chi-square p-value matches published table values and flags a loaded die."""

from __future__ import annotations

import pytest

from diceledger.domain.stats.chisquare import statistic, survival, uniform_p_value


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [(3.841, 1, 0.05), (43.82, 19, 0.001), (30.14, 19, 0.05), (11.07, 5, 0.05), (9.210, 2, 0.01)],
)
def test_survival_matches_chi_square_tables(x: float, df: int, p: float) -> None:
    assert survival(x, df) == pytest.approx(p, rel=2e-3)


def test_statistic_of_a_perfect_fit_is_zero_and_p_is_one() -> None:
    assert statistic([10, 10, 10], [10.0, 10.0, 10.0]) == 0
    assert uniform_p_value([50] * 6) == 1.0


def test_a_d6_that_shows_six_twice_as_often_is_flagged_with_enough_rolls() -> None:
    loaded = [100, 100, 100, 100, 100, 200]
    assert uniform_p_value(loaded) < 1e-6
    assert uniform_p_value([10, 10, 10, 10, 10, 20]) > 0.05

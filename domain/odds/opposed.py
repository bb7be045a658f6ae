"""Exact odds of an opposed check, ties rolled again until someone wins (R6)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from domain.dice.request import RollSpec
from domain.errors import RollError
from domain.odds.exact import distribution


@dataclass(frozen=True, slots=True)
class OpposedOdds:
    """Side a's chance to win and to lose in the end, and the chance one round ties."""

    win: Fraction
    lose: Fraction
    tie: Fraction


def opposed_odds(a: RollSpec, b: RollSpec) -> OpposedOdds:
    """Return the odds of side ``a`` against side ``b``; a tied round is rolled again."""
    first, second = distribution(a), distribution(b)
    higher = lower = Fraction(0)
    for total_a, p_a in first.items():
        higher += p_a * (1 - second.at_least(total_a))
        lower += p_a * second.at_least(total_a + 1)
    tie = 1 - higher - lower
    if tie == 1:
        raise RollError("the two sides always tie, so the opposed check never ends")
    return OpposedOdds(win=higher / (1 - tie), lose=lower / (1 - tie), tie=tie)

"""Exact odds of an opposed check, ties rolled again until someone wins (R6)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from diceledger.domain.dice.request import RollSpec
from diceledger.domain.errors import RollError
from diceledger.domain.odds.exact import distribution


@dataclass(frozen=True, slots=True)
class OpposedOdds:
    """Side a's chance to win and to lose in the end, and the chance one round ties."""

    win: Fraction
    lose: Fraction
    tie: Fraction


def opposed_odds(a: RollSpec, b: RollSpec) -> OpposedOdds:
    """Return the odds of side ``a`` against side ``b``; a tied round is rolled again."""
    first, second = distribution(a), distribution(b)
    others = list(second)
    next_other, below = 0, 0  # ``below``: weight of b's totals under the current total of a
    higher = tied = 0
    for total in first:  # both in increasing order of total
        while next_other < len(others) and others[next_other] < total:
            below += second.weight(others[next_other])
            next_other += 1
        weight = first.weight(total)
        higher += weight * below
        tied += weight * second.weight(total)
    rounds = first.denominator * second.denominator
    if tied == rounds:
        raise RollError("the two sides always tie, so the opposed check never ends")
    decided = rounds - tied
    return OpposedOdds(
        win=Fraction(higher, decided),
        lose=Fraction(decided - higher, decided),
        tie=Fraction(tied, rounds),
    )

"""Exact odds of an opposed check, ties rolled again until someone wins (R6).

With rerolls (R11), each side follows the default policy in its turn, and what it leaves
unspent carries into the next round after a tie, so a later round is not the first one
again: the odds follow every pair of allowances the sides can still hold (docs/odds.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from diceledger.domain.dice.request import RollSpec
from diceledger.domain.errors import RollError
from diceledger.domain.odds.distribution import Distribution
from diceledger.domain.odds.exact import distribution, spent_distributions
from diceledger.domain.odds.weights import refuse

# Above this many pairs of allowances left (one per side) the odds are refused: each pair
# compares every way both sides can spend (half a second here at the limit, 10 and 10).
MAX_ALLOWANCE_PAIRS = 121


@dataclass(frozen=True, slots=True)
class OpposedOdds:
    """Side a's chance to win and to lose in the end, and the chance the first round ties."""

    win: Fraction
    lose: Fraction
    tie: Fraction


def opposed_odds(a: RollSpec, b: RollSpec, a_rerolls: int = 0, b_rerolls: int = 0) -> OpposedOdds:
    """Return the odds of side ``a`` against side ``b``; a tied round is rolled again.

    ``a_rerolls`` and ``b_rerolls`` are each side's allowance, spent by the default policy.
    """
    if a_rerolls < 0 or b_rerolls < 0:
        raise RollError("a reroll allowance must not be negative")
    if not a_rerolls and not b_rerolls:
        higher, tied, rounds = _compare(distribution(a), distribution(b))
        if tied == rounds:
            raise RollError("the two sides always tie, so the opposed check never ends")
        decided = rounds - tied
        return OpposedOdds(
            win=Fraction(higher, decided),
            lose=Fraction(decided - higher, decided),
            tie=Fraction(tied, rounds),
        )
    pairs = (a_rerolls + 1) * (b_rerolls + 1)
    if pairs > MAX_ALLOWANCE_PAIRS:
        raise refuse(f"{pairs} pairs of allowances to follow through tied rounds")
    return _with_rerolls(a, b, a_rerolls, b_rerolls)


def _compare(first: Distribution, second: Distribution) -> tuple[int, int, int]:
    """Return the weights of ``first`` beating and tying ``second``, and of every pair."""
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
    return higher, tied, first.denominator * second.denominator


Round = dict[int, Distribution]  # rerolls spent -> P(spent, total)


def _with_rerolls(a: RollSpec, b: RollSpec, a_rerolls: int, b_rerolls: int) -> OpposedOdds:
    first = [_round(a, left) for left in range(a_rerolls + 1)]
    second = [_round(b, left) for left in range(b_rerolls + 1)]
    # win[i][j]: side a's chance to win in the end from a round begun with i and j left.
    # A tie in which neither side spent anything starts the same round again, so that
    # branch is solved for: win = (wins + ties that spent) / (1 - ties that spent none).
    win: list[list[Fraction]] = []
    tie_first = Fraction(0)
    for i in range(a_rerolls + 1):
        row: list[Fraction] = []
        for j in range(b_rerolls + 1):
            wins, again, stuck = Fraction(0), Fraction(0), Fraction(0)
            for spent_a, dist_a in first[i].items():
                for spent_b, dist_b in second[j].items():
                    higher, tied, rounds = _compare(dist_a, dist_b)
                    wins += Fraction(higher, rounds)
                    if spent_a == spent_b == 0:
                        stuck += Fraction(tied, rounds)
                    elif tied:
                        later = row[j - spent_b] if spent_a == 0 else win[i - spent_a][j - spent_b]
                        again += Fraction(tied, rounds) * later
                    if (i, j) == (a_rerolls, b_rerolls):
                        tie_first += Fraction(tied, rounds)
            if stuck == 1:
                raise RollError("the two sides always tie, so the opposed check never ends")
            row.append((wins + again) / (1 - stuck))
        win.append(row)
    chance = win[a_rerolls][b_rerolls]
    return OpposedOdds(win=chance, lose=1 - chance, tie=tie_first)


def _round(spec: RollSpec, left: int) -> Round:
    return {
        spent: Distribution(weights) for spent, weights in spent_distributions(spec, left).items()
    }

"""The exact odds agree with 100,000 seeded rolls of the engine, within 4 standard errors.

Slow (the engine resolves every roll die by die), so only a few cases are sampled; the
exact agreement with the engine is tested draw by draw in test_rerolls_odds.py.
"""

from __future__ import annotations

import math

import pytest

from diceledger.domain.dice.engine import roll
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import CheckDie, Modifier, RollSpec
from diceledger.domain.dice.sources import SeededSource
from diceledger.domain.odds import distribution

ROLLS = 100_000


def sampled_totals(spec: RollSpec, rerolls: int, seed: bytes) -> list[int]:
    source = SeededSource(seed, session_id="monte-carlo", nonce=1)
    return [roll(spec, source, rerolls=rerolls).total for _ in range(ROLLS)]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "spec", "rerolls", "target"),
    [
        ("R7 advantage check", RollSpec(parse("1d20+5"), CheckDie((Modifier(1),))), 0, 15),
        ("R8 R12 median check", RollSpec(parse("1d6+1"), CheckDie(median=True)), 0, 6),
        ("R11 rerolls, check", RollSpec(parse("1d12+1d4"), CheckDie((Modifier(1),))), 1, 13),
    ],
)
def test_seeded_rolls_match_the_exact_odds(
    name: str, spec: RollSpec, rerolls: int, target: int
) -> None:
    dist = distribution(spec, rerolls)
    totals = sampled_totals(spec, rerolls, seed=name.encode())
    p = float(dist.at_least(target))
    observed = sum(t >= target for t in totals) / ROLLS
    assert abs(observed - p) <= 4 * math.sqrt(p * (1 - p) / ROLLS)
    mean = float(dist.mean)
    variance = sum(float(q) * (t - mean) ** 2 for t, q in dist.items())
    assert abs(sum(totals) / ROLLS - mean) <= 4 * math.sqrt(variance / ROLLS)

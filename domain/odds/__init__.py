"""Exact probabilities of rolls and checks under the ruleset (see docs/odds.md)."""

from __future__ import annotations

from diceledger.domain.odds.best_rerolls import best_success
from diceledger.domain.odds.distribution import Distribution
from diceledger.domain.odds.exact import clear_caches, distribution, success_probability
from diceledger.domain.odds.opposed import OpposedOdds, opposed_odds

__all__ = [
    "Distribution",
    "OpposedOdds",
    "best_success",
    "clear_caches",
    "distribution",
    "opposed_odds",
    "success_probability",
]

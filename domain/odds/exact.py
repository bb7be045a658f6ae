"""Exact odds of a roll or a check: its total's distribution and its chance of success."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import TypeVar

from diceledger.domain.dice.ast import DiceTerm
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.errors import RollError
from diceledger.domain.odds import dice
from diceledger.domain.odds.bounds import check_size
from diceledger.domain.odds.canonical import Key, spec_key
from diceledger.domain.odds.dice import check_die, dice_sum
from diceledger.domain.odds.distribution import Distribution
from diceledger.domain.odds.expression import eased, evaluate
from diceledger.domain.odds.rerolls import (
    dice_groups,
    explodes_in,
    rerolled_total,
    rerolled_totals_by_spent,
)
from diceledger.domain.odds.weights import Weights

_K = TypeVar("_K")
_V = TypeVar("_V")


def distribution(spec: RollSpec, rerolls: int = 0) -> Distribution:
    """Return the exact distribution of the total of ``spec``.

    With ``rerolls`` > 0 the dice are resolved by R11's default policy with that allowance.
    """
    if rerolls < 0:
        raise RollError(f"a reroll allowance must not be negative, got {rerolls}")
    return _cached_distribution(spec_key(spec, rerolls), spec, rerolls)


@lru_cache(maxsize=4096)
def success_probability(spec: RollSpec, target: int, rerolls: int = 0) -> Fraction:
    """Return P(total >= target) for a check of ``spec`` (meet or beat, R3)."""
    # Behind the fast cache on equal specs, a second one on the canonical form catches the
    # same roll parsed again or spelled differently.
    key = (spec_key(spec, rerolls), target)
    chance = _SUCCESSES.get(key)
    if chance is None:
        chance = distribution(spec, rerolls).at_least(target)
        _remember(_SUCCESSES, key, chance)
    return chance


def _cached_distribution(key: Key, spec: RollSpec, rerolls: int) -> Distribution:
    cached = _DISTRIBUTIONS.get(key)
    if cached is not None:
        return cached
    refusal = _REFUSALS.get(key)
    if refusal is not None:  # refusing again is instant; some refusals take a moment
        raise RollError(refusal)
    try:
        cached = Distribution(_total_weights(spec, rerolls))
    except RollError as error:
        _remember(_REFUSALS, key, str(error))
        raise
    _remember(_DISTRIBUTIONS, key, cached, _DISTRIBUTION_LIMIT)
    return cached


# Few distributions (one may hold megabytes of exact weights), many small answers.
_DISTRIBUTION_LIMIT = 256
_ANSWER_LIMIT = 4096
_DISTRIBUTIONS: dict[Key, Distribution] = {}
_SUCCESSES: dict[tuple[Key, int], Fraction] = {}
_REFUSALS: dict[Key, str] = {}
_SPENT: dict[Key, dict[int, Weights]] = {}


def _remember(cache: dict[_K, _V], key: _K, value: _V, limit: int = _ANSWER_LIMIT) -> None:
    # Dicts keep insertion order, so the oldest entry goes first when one is full.
    if len(cache) >= limit:
        cache.pop(next(iter(cache)))
    cache[key] = value


def clear_caches() -> None:
    """Forget every cached distribution and success probability (for benchmarks and tests)."""
    _DISTRIBUTIONS.clear()
    _SUCCESSES.clear()
    _REFUSALS.clear()
    _SPENT.clear()
    success_probability.cache_clear()
    for cached in (dice.chain, dice.die, dice.dice_sum, dice.counted_face, dice.check_die):
        cached.cache_clear()


def spent_distributions(spec: RollSpec, rerolls: int) -> dict[int, Weights]:
    """Return rerolls spent -> joint weights of the totals, under R11's default policy.

    Each entry is P(spent, total) over its own denominator; an allowance of 0 spends none.
    """
    key = spec_key(spec, rerolls)
    cached = _SPENT.get(key)
    if cached is None:
        if rerolls:
            check_size(spec)
            root = eased(spec.expression.root, spec.ease)
            cached = rerolled_totals_by_spent(root, dice_groups(spec), rerolls)
        else:
            cached = {0: _total_weights(spec, 0)}
        _remember(_SPENT, key, cached, _DISTRIBUTION_LIMIT)
    return cached


def _total_weights(spec: RollSpec, rerolls: int) -> Weights:
    check_size(spec)
    root = eased(spec.expression.root, spec.ease)
    check_term = spec.check_term
    check = spec.check

    def explodes(term: DiceTerm) -> bool:
        return explodes_in(spec, term)

    if rerolls:
        return rerolled_total(root, dice_groups(spec), rerolls)

    def term_values(term: DiceTerm) -> Weights:
        if check is not None and term.term == check_term:
            return check_die(check.pool_size, term.sides, check.counted_rank, explodes(term))
        return dice_sum(term.count, term.sides, explodes(term))

    return evaluate(root, term_values)

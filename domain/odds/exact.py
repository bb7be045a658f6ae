"""Exact odds of a roll or a check: its total's distribution and its chance of success."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from domain.dice.ast import DiceTerm
from domain.dice.request import RollSpec
from domain.errors import RollError
from domain.odds import dice
from domain.odds.bounds import check_size
from domain.odds.canonical import Key, spec_key
from domain.odds.dice import check_die, dice_sum
from domain.odds.distribution import Distribution
from domain.odds.expression import eased, evaluate
from domain.odds.rerolls import DiceGroup, rerolled_total
from domain.odds.weights import Weights


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
    return _cached_success(spec_key(spec, rerolls), spec, target, rerolls)


@lru_cache(maxsize=4096)
def _cached_success(key: Key, spec: RollSpec, target: int, rerolls: int) -> Fraction:
    # Keyed on the canonical form, so a spec parsed twice or spelled differently hits it.
    return distribution(spec, rerolls).at_least(target)


def _cached_distribution(key: Key, spec: RollSpec, rerolls: int) -> Distribution:
    cached = _DISTRIBUTIONS.get(key)
    if cached is None:
        cached = Distribution(_total_weights(spec, rerolls))
        if len(_DISTRIBUTIONS) >= _MAX_CACHED:
            _DISTRIBUTIONS.pop(next(iter(_DISTRIBUTIONS)))
        _DISTRIBUTIONS[key] = cached
    return cached


# Insertion-ordered, so the oldest entry is dropped first when it is full.
_DISTRIBUTIONS: dict[Key, Distribution] = {}
_MAX_CACHED = 512


def clear_caches() -> None:
    """Forget every cached distribution and success probability (for benchmarks and tests)."""
    _DISTRIBUTIONS.clear()
    success_probability.cache_clear()
    _cached_success.cache_clear()
    for cached in (dice.chain, dice.die, dice.dice_sum, dice.counted_face, dice.check_die):
        cached.cache_clear()


def _total_weights(spec: RollSpec, rerolls: int) -> Weights:
    check_size(spec)
    root = eased(spec.expression.root, spec.ease)
    check_term = spec.check_term
    check = spec.check

    def explodes(term: DiceTerm) -> bool:
        return spec.exploding and term.exploding

    if rerolls:
        groups = tuple(
            DiceGroup(t.term, check.pool_size, t.sides, explodes(t), check.counted_rank)
            if check is not None and t.term == check_term
            else DiceGroup(t.term, t.count, t.sides, explodes(t), None)
            for t in spec.expression.terms
        )
        return rerolled_total(root, groups, rerolls)

    def term_values(term: DiceTerm) -> Weights:
        if check is not None and term.term == check_term:
            return check_die(check.pool_size, term.sides, check.counted_rank, explodes(term))
        return dice_sum(term.count, term.sides, explodes(term))

    return evaluate(root, term_values)

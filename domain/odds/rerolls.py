"""Exact totals under R11's default reroll policy (states in reroll_states.py)."""

from __future__ import annotations

from dataclasses import dataclass

from diceledger.domain.dice.ast import DiceTerm, Node
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.odds.dice import chain
from diceledger.domain.odds.expression import evaluate
from diceledger.domain.odds.reroll_states import (
    Faces,
    State,
    faces_by_group,
    final_states,
    final_states_spent,
)
from diceledger.domain.odds.weights import Weights, mixture, point, power, shift


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """Base dice of one term: ``rank`` is the counted rank for the check pool, else None."""

    term: int
    count: int
    sides: int
    exploding: bool
    rank: int | None


def dice_groups(spec: RollSpec) -> tuple[DiceGroup, ...]:
    """Return the base dice of each term as the reroll states see them."""
    check, check_term = spec.check, spec.check_term
    return tuple(
        DiceGroup(t.term, check.pool_size, t.sides, explodes_in(spec, t), check.counted_rank)
        if check is not None and t.term == check_term
        else DiceGroup(t.term, t.count, t.sides, explodes_in(spec, t), None)
        for t in spec.expression.terms
    )


def explodes_in(spec: RollSpec, term: DiceTerm) -> bool:
    """Tell whether the dice of ``term`` explode in ``spec`` (R13)."""
    return spec.exploding and term.exploding


def rerolled_total(root: Node, groups: tuple[DiceGroup, ...], rerolls: int) -> Weights:
    """Return the distribution of ``root`` after the default policy spends up to ``rerolls``."""
    sizes = tuple(g.sides for g in groups)
    states, denom = final_states(sizes, tuple(g.count for g in groups), rerolls)
    return _totals(root, groups, states, denom)


def rerolled_totals_by_spent(
    root: Node, groups: tuple[DiceGroup, ...], rerolls: int
) -> dict[int, Weights]:
    """Return, per number of rerolls the default policy spent, the joint weights of totals.

    Each entry's weights over its own denominator are P(spent, total); together they sum
    to 1. An opposed check needs them: what a side leaves unspent carries into a tied
    round.
    """
    sizes = tuple(g.sides for g in groups)
    states, denom = final_states_spent(sizes, tuple(g.count for g in groups), rerolls)
    by_spent: dict[int, dict[State, int]] = {}
    for (spent, state), weight in states.items():
        by_spent.setdefault(spent, {})[state] = weight
    return {spent: _totals(root, groups, part, denom) for spent, part in sorted(by_spent.items())}


def _totals(
    root: Node, groups: tuple[DiceGroup, ...], states: dict[State, int], denom: int
) -> Weights:
    # The total depends on far less than the full state: group it by what it depends on.
    keyed: dict[tuple[tuple[int, int], ...], int] = {}
    for state, weight in states.items():
        faces = faces_by_group(state, len(groups))
        key = tuple(_value_key(g, f) for g, f in zip(groups, faces, strict=True))
        keyed[key] = keyed.get(key, 0) + weight
    by_term = {g.term: i for i, g in enumerate(groups)}
    parts = []
    for key, weight in keyed.items():
        values = [_group_value(g, k) for g, k in zip(groups, key, strict=True)]

        def term_values(term: DiceTerm, values: list[Weights] = values) -> Weights:
            return values[by_term[term.term]]

        parts.append((weight, evaluate(root, term_values)))
    return mixture(parts, denom)


def _value_key(group: DiceGroup, faces: Faces) -> tuple[int, int]:
    """Reduce a group's faces to what its value depends on: (fixed part, chains added)."""
    if group.rank is not None:
        face = faces[len(faces) - 1 - group.rank]
        return (face, 1 if group.exploding and face == group.sides else 0)
    exploded = faces.count(group.sides) if group.exploding else 0
    return (sum(faces), exploded)


def _group_value(group: DiceGroup, key: tuple[int, int]) -> Weights:
    fixed, exploded = key
    if exploded == 0:
        return point(fixed)
    return shift(power(chain(group.sides), exploded), fixed)

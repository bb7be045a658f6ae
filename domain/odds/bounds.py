"""Refuse, before any work, a roll whose exact distribution would be too costly to compute."""

from __future__ import annotations

from diceledger.domain.dice.ast import DiceTerm, Negate, Node, Number
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.odds.dice import check_die, die
from diceledger.domain.odds.weights import MAX_PRODUCT_PAIRS, MAX_RESULT_BITS, refuse


def check_size(spec: RollSpec) -> None:
    """Raise RollError when the estimated size of the result passes the documented bounds."""
    span, bits = _estimate(spec.expression.root, spec)
    if span * bits > MAX_RESULT_BITS:
        raise refuse(f"about {span} totals with {bits}-bit weights")


def _estimate(node: Node, spec: RollSpec) -> tuple[int, int]:
    """Return (number of totals, bits of the denominator), both upper estimates."""
    if isinstance(node, Number):
        return 1, 0
    if isinstance(node, DiceTerm):
        return _term_estimate(node, spec)
    if isinstance(node, Negate):
        return _estimate(node.operand, spec)
    span_a, bits_a = _estimate(node.left, spec)
    span_b, bits_b = _estimate(node.right, spec)
    if node.op in "+-":
        return span_a + span_b, bits_a + bits_b
    if node.op == "/":
        return span_a, bits_a
    if span_a > 1 and span_b > 1 and span_a * span_b > MAX_PRODUCT_PAIRS:
        raise refuse(f"a product of two dice totals with {span_a * span_b} outcome pairs")
    return span_a * span_b, bits_a + bits_b


def _term_estimate(term: DiceTerm, spec: RollSpec) -> tuple[int, int]:
    explodes = spec.exploding and term.exploding
    check = spec.check
    if check is not None and term.term == spec.check_term:
        one = check_die(check.pool_size, term.sides, check.counted_rank, explodes)
        return len(one.table), one.denom.bit_length()
    one = die(term.sides, explodes)
    return term.count * len(one.table), term.count * one.denom.bit_length()

"""Evaluate a roll expression over distributions instead of numbers (R2, R9, R10)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from diceledger.domain.dice.ast import BinaryOp, DiceTerm, Negate, Node, Number
from diceledger.domain.errors import RollError
from diceledger.domain.odds.weights import Weights, add, floor_divide, multiply, negate, point

TermValues = Callable[[DiceTerm], Weights]


def eased(root: Node, ease: int) -> Node:
    """Return the expression with Eased/Hindered added where R9 puts it.

    R14 applies ease before divisions, so for an expression that ends in a division the
    amount joins what is divided, all the way down a chain of trailing divisions.
    """
    if ease == 0:
        return root
    if isinstance(root, BinaryOp) and root.op == "/":
        return replace(root, left=eased(root.left, ease))
    return BinaryOp("+", root, Number(ease, column=0), column=0)


def evaluate(node: Node, term_values: TermValues) -> Weights:
    """Return the distribution of ``node``, given the distribution of each dice term."""
    if isinstance(node, DiceTerm):
        return term_values(node)
    if isinstance(node, Number):
        return point(node.value)
    if isinstance(node, Negate):
        return negate(evaluate(node.operand, term_values))
    left = evaluate(node.left, term_values)
    right = evaluate(node.right, term_values)
    if node.op == "+":
        return add(left, right)
    if node.op == "-":
        return add(left, negate(right))
    if node.op == "*":
        return multiply(left, right)
    if not right.is_constant:
        raise RollError("the right side of a division must be a constant")
    return floor_divide(left, right.constant())

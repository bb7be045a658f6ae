"""Exact integer values of parsed roll expressions (R2, R10).

The walks here use an explicit stack instead of recursion: a 1,000-character expression
such as ``1+1+...+1`` or ``----...-1`` is a tree hundreds of levels deep, which would
exhaust Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from diceledger.domain.dice.ast import BinaryOp, DiceTerm, Negate, Node, Number, Operator
from diceledger.domain.errors import DiceNotationError


def postorder(node: Node) -> Iterator[Node]:
    """Yield every node of the tree, children before their parent, left before right."""
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        current, children_done = stack.pop()
        if children_done:
            yield current
        elif isinstance(current, BinaryOp):
            stack.append((current, True))
            stack.append((current.right, False))
            stack.append((current.left, False))
        elif isinstance(current, Negate):
            stack.append((current, True))
            stack.append((current.operand, False))
        else:
            yield current


def apply(op: Operator, left: int, right: int) -> int:
    """Combine two values with an operator; ``/`` rounds down, also for negatives (R10)."""
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    return left // right


def evaluate(node: Node, term_values: Mapping[int, int]) -> int:
    """Return the value of a tree, given the value of each dice term by its index."""
    values: list[int] = []
    for item in postorder(node):
        if isinstance(item, Number):
            values.append(item.value)
        elif isinstance(item, DiceTerm):
            values.append(term_values[item.term])
        elif isinstance(item, Negate):
            values.append(-values.pop())
        else:
            right = values.pop()
            values.append(apply(item.op, values.pop(), right))
    return values[0]


def first_die(node: Node) -> DiceTerm | None:
    """Return the leftmost dice term of a tree, or None if it has no dice."""
    return next((item for item in postorder(node) if isinstance(item, DiceTerm)), None)


def constant_value(node: Node) -> int:
    """Return the value of a tree without dice; refuse one that has a die."""
    die = first_die(node)
    if die is not None:
        raise DiceNotationError("a constant cannot contain dice", die.column)
    return evaluate(node, {})

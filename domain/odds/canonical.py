"""A cache key for a roll request that ignores spelling: columns, labels, spaces."""

from __future__ import annotations

from diceledger.domain.dice.ast import DiceTerm, Negate, Node, Number
from diceledger.domain.dice.request import RollSpec

Key = tuple[object, ...]


def node_key(node: Node) -> Key:
    """Return a hashable form of ``node`` that keeps only what changes the odds."""
    if isinstance(node, DiceTerm):
        return ("d", node.count, node.sides, node.exploding)
    if isinstance(node, Number):
        return ("n", node.value)
    if isinstance(node, Negate):
        return ("neg", node_key(node.operand))
    return (node.op, node_key(node.left), node_key(node.right))


def spec_key(spec: RollSpec, rerolls: int) -> Key:
    """Return a key equal for every request whose total has the same distribution."""
    check = None if spec.check is None else (spec.check.score, spec.check.median)
    return (node_key(spec.expression.root), check, spec.ease, spec.exploding, rerolls)

"""The ruleset built a second time from icepool's own operations, to check the engine against.

Explosion chains here follow the same documented cut (the die at which fewer than 1e-15 of
a chain's probability still explodes keeps its maximum), so the two must agree exactly.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import icepool

from diceledger.domain.dice.ast import BinaryOp, DiceTerm, Negate, Node, Number
from diceledger.domain.dice.request import RollSpec

LADDER = (4, 6, 8, 10, 12, 20)


def next_smaller(sides: int) -> int:
    return LADDER[max(LADDER.index(sides) - 1, 0)]


def chain_sizes(sides: int, cut: Fraction = Fraction(1, 10**15)) -> list[int]:
    """Sizes of the explosion dice, stopping once reaching the next one is below ``cut``."""
    sizes, reach, size = [], Fraction(1), sides
    while reach >= cut:
        sizes.append(size)
        reach /= size
        size = next_smaller(size)
    return sizes


def chain(sizes: list[int]) -> Any:
    """The explosion dice after a maximum: each maximum adds the next size; the last stops."""
    first = icepool.d(sizes[0])
    if len(sizes) == 1:
        return first
    rest = chain(sizes[1:])
    return first.map(lambda face: face + rest if face == sizes[0] else face)


def exploding(face_die: Any, sides: int, cut: Fraction = Fraction(1, 10**15)) -> Any:
    """A counted die: its face, plus a chain when the face is the maximum."""
    tail = chain(chain_sizes(sides, cut))
    return face_die.map(lambda face: face + tail if face == sides else face)


def total(spec: RollSpec, cut: Fraction = Fraction(1, 10**15)) -> Any:
    """The icepool die of a spec's total (no rerolls)."""
    check_term = spec.check_term
    check = spec.check

    def term(node: DiceTerm) -> Any:
        explodes = spec.exploding and node.exploding
        if check is not None and node.term == check_term:
            pool = icepool.d(node.sides).pool(check.pool_size)
            faces = pool[check.pool_size - 1 - check.counted_rank]  # pools sort ascending
            return exploding(faces, node.sides, cut) if explodes else faces
        one = (
            exploding(icepool.d(node.sides), node.sides, cut) if explodes else icepool.d(node.sides)
        )
        return node.count @ one

    def value(node: Node, ease: int) -> Any:
        if isinstance(node, BinaryOp) and node.op == "/":
            return value(node.left, ease) // plain(node.right)
        return plain(node) + ease

    def plain(node: Node) -> Any:
        if isinstance(node, DiceTerm):
            return term(node)
        if isinstance(node, Number):
            return node.value
        if isinstance(node, Negate):
            return -plain(node.operand)
        left, right = plain(node.left), plain(node.right)
        if node.op == "+":
            return left + right
        if node.op == "-":
            return left - right
        if node.op == "*":
            return left * right
        return left // right

    result = value(spec.expression.root, spec.ease)
    return result if isinstance(result, icepool.Die) else icepool.Die([result])


def probabilities(die: Any) -> dict[int, Fraction]:
    """Outcome -> exact probability of an icepool die, leaving out zero weights."""
    denominator = die.denominator()
    return {
        outcome: Fraction(quantity, denominator) for outcome, quantity in die.items() if quantity
    }

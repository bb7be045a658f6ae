"""A roll spec compiled once into flat tables, which the engine runs.

Walking the spec's terms and the expression tree for every die and every total, as the
rules read (domain/verification/reference.py does), costs more than the dice; a session
rolls the same few specs over and over, so what those walks find is worked out here once
per spec: each base slot's die size and term, which slots may
explode, the check pool, and the total as a constant plus a multiple of each term's value
when the expression allows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from diceledger.domain.dice.ast import BinaryOp, DiceTerm, Expression, Negate, Node, Number
from diceledger.domain.dice.evaluate import constant_value, evaluate, postorder

# (constant, {term: coefficient}): the value of a tree that is linear in its dice terms.
Linear = tuple[int, dict[int, int]]


@dataclass(frozen=True, slots=True)
class RollPlan:
    """What the engine runs for one spec.

    ``sides``, ``terms`` and ``explodes`` give each base slot (in draw order) its die size,
    its term and whether it explodes when it counts. ``pool`` is the check pool's slots and
    ``counted_rank`` the rank of the counted face (see ``CheckDie``). ``constant`` and
    ``coefficients`` give the total as ``constant + sum(c * value[term])``, Eased/Hindered
    included, or ``coefficients`` is None when a division or a product of dice needs the
    tree walked (then ``root`` and ``ease`` are used).
    """

    sides: tuple[int, ...]
    terms: tuple[int, ...]
    explodes: tuple[bool, ...]
    pool: range | None
    counted_rank: int
    base_slots: tuple[int, ...]  # every base slot: 0, 1, ... (the live dice at start)
    # The slots before and after the pool, which always count (all slots if no pool).
    before_pool: tuple[int, ...]
    after_pool: tuple[int, ...]
    # Per term, the slice of base slots whose faces sum to its value (the check term's
    # slice is empty: its value is its counted die's face).
    spans: tuple[slice, ...]
    # The slots outside the pool whose dice explode on their highest face, in slot order.
    exploding: tuple[int, ...]
    constant: int
    coefficients: tuple[tuple[int, int], ...] | None
    root: Node
    ease: int

    def total(self, values: Sequence[int]) -> int:
        """Return the roll's total from each dice term's value (R9, R10, R14)."""
        if self.coefficients is not None:
            total = self.constant
            for term, coefficient in self.coefficients:
                total += coefficient * values[term]
            return total
        return value_with_ease(self.root, dict(enumerate(values)), self.ease)


def value_with_ease(node: Node, values: dict[int, int], ease: int) -> int:
    """Return the expression's value with Eased/Hindered entering before a division (R14)."""
    # Ease enters before a trailing division (R14): floor((x + ease) / d).
    if isinstance(node, BinaryOp) and node.op == "/":
        return value_with_ease(node.left, values, ease) // constant_value(node.right)
    return evaluate(node, values) + ease


def compile_plan(
    expression: Expression,
    layout: tuple[tuple[int, ...], ...],
    check_term: int | None,
    counted_rank: int,
    exploding: bool,
    ease: int,
) -> RollPlan:
    """Return the plan of a spec from its parts (``RollSpec`` calls this once)."""
    sides: list[int] = []
    terms: list[int] = []
    explodes: list[bool] = []
    for term, slots in zip(expression.terms, layout, strict=True):
        sides += [term.sides] * len(slots)
        terms += [term.term] * len(slots)
        explodes += [exploding and term.exploding] * len(slots)
    pool = None
    before: tuple[int, ...] = tuple(range(len(sides)))
    after: tuple[int, ...] = ()
    if check_term is not None:
        slots = layout[check_term]
        pool = range(slots[0], slots[-1] + 1)
        before, after = before[: pool.start], before[pool.stop :]
    linear = _linear(expression.root)
    constant, coefficients = 0, None
    if linear is not None:
        constant = linear[0] + ease
        coefficients = tuple(sorted(linear[1].items()))
    return RollPlan(
        tuple(sides),
        tuple(terms),
        tuple(explodes),
        pool,
        counted_rank,
        tuple(range(len(sides))),
        before,
        after,
        tuple(
            slice(0) if term.term == check_term else slice(slots[0], slots[0] + len(slots))
            for term, slots in zip(expression.terms, layout, strict=True)
        ),
        tuple(slot for slot in (*before, *after) if explodes[slot]),
        constant,
        coefficients,
        expression.root,
        ease,
    )


def _linear(root: Node) -> Linear | None:
    """Return the tree as constant + coefficients of its terms, or None if it is not linear."""
    values: list[Linear | None] = []
    for node in postorder(root):
        if isinstance(node, Number):
            values.append((node.value, {}))
        elif isinstance(node, DiceTerm):
            values.append((0, {node.term: 1}))
        elif isinstance(node, Negate):
            values.append(_scale(values.pop(), -1))
        else:
            right, left = values.pop(), values.pop()
            values.append(_combine(node, left, right))
    return values[0]


def _scale(value: Linear | None, factor: int) -> Linear | None:
    if value is None:
        return None
    return value[0] * factor, {term: c * factor for term, c in value[1].items()}


def _combine(node: BinaryOp, left: Linear | None, right: Linear | None) -> Linear | None:
    if left is None or right is None or node.op == "/":
        return None  # a division rounds down, which no coefficient expresses
    if node.op == "*":
        if not left[1]:
            return _scale(right, left[0])
        if not right[1]:
            return _scale(left, right[0])
        return None  # dice times dice
    sign = 1 if node.op == "+" else -1
    coefficients = dict(left[1])
    for term, c in right[1].items():
        coefficients[term] = coefficients.get(term, 0) + sign * c
    return left[0] + sign * right[0], coefficients

"""What each die of a resolved roll did, and how the total is made up."""

from __future__ import annotations

from dataclasses import dataclass

from diceledger.domain.dice.ast import BinaryOp, DiceTerm, Negate, Node, Number
from diceledger.domain.dice.engine import Die, RollState
from diceledger.domain.dice.notation import constant_value, evaluate, format_expression
from diceledger.domain.dice.request import Modifier, total


@dataclass(frozen=True, slots=True)
class DieView:
    """A die with its standing in the roll: counted, and discarded by a reroll."""

    die: Die
    counted: bool
    discarded: bool


def die_views(state: RollState) -> tuple[DieView, ...]:
    """Return every die of the roll in draw order with whether it counts or was discarded."""
    counted: set[int] = set()
    standing: set[int] = set()
    counted_slots = set(state.counted_slots)
    for slot, index in enumerate(state.live):
        group = {index, *(state.chains[index] or ())}
        standing |= group
        if slot in counted_slots:
            counted |= group
    return tuple(DieView(d, d.index in counted, d.index not in standing) for d in state.dice)


@dataclass(frozen=True, slots=True)
class Part:
    """One signed summand of the expression: a dice term, a modifier, or a group."""

    sign: int
    kind: str  # "dice" | "modifier" | "group"
    text: str
    value: int
    label: str | None = None


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The total taken apart: summands, Eased, Hindered, then trailing divisions."""

    parts: tuple[Part, ...]
    eased: tuple[Modifier, ...]
    hindered: tuple[Modifier, ...]
    divisors: tuple[int, ...]
    total: int

    def recompute(self) -> int:
        """Return the total rebuilt from the parts alone (for checking and display)."""
        value = sum(p.sign * p.value for p in self.parts) + total(self.eased) - total(self.hindered)
        for divisor in self.divisors:
            value //= divisor
        return value


def peel_divisions(root: Node) -> tuple[Node, tuple[int, ...]]:
    """Split ``(x / a) / b`` into ``x`` and the divisors ``(a, b)``, innermost first."""
    divisors: list[int] = []
    node = root
    while isinstance(node, BinaryOp) and node.op == "/":
        divisors.append(constant_value(node.right))
        node = node.left
    return node, tuple(reversed(divisors))


def _summands(node: Node, sign: int) -> list[tuple[int, Node]]:
    if isinstance(node, BinaryOp) and node.op in "+-":
        right_sign = sign if node.op == "+" else -sign
        return _summands(node.left, sign) + _summands(node.right, right_sign)
    if isinstance(node, Negate):
        return _summands(node.operand, -sign)
    return [(sign, node)]


def breakdown(state: RollState) -> Breakdown:
    """Take the state's total apart into signed summands, ease and divisions."""
    dividend, divisors = peel_divisions(state.spec.expression.root)
    values = state.term_values
    parts = []
    for sign, node in _summands(dividend, 1):
        kind = "dice" if isinstance(node, DiceTerm) else "modifier"
        if not isinstance(node, DiceTerm | Number):
            kind = "group"
        label = node.label if isinstance(node, DiceTerm | Number) else None
        parts.append(Part(sign, kind, format_expression(node), evaluate(node, values), label))
    spec = state.spec
    return Breakdown(tuple(parts), spec.eased, spec.hindered, divisors, state.total)

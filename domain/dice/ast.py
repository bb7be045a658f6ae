"""The parsed form of a roll expression (R2).

A parsed expression is a tree of four node kinds. Dice terms are numbered left to
right (``term``), which is the order their dice are drawn in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Operator = Literal["+", "-", "*", "/"]


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``NdS``: ``count`` dice of ``sides`` sides; ``n`` after it marks them non-exploding."""

    count: int
    sides: int
    exploding: bool
    term: int
    column: int
    label: str | None = None


@dataclass(frozen=True, slots=True)
class Number:
    """An integer modifier, optionally labelled for provenance (``3[STR]``)."""

    value: int
    column: int
    label: str | None = None


@dataclass(frozen=True, slots=True)
class Negate:
    """Unary minus."""

    operand: Node
    column: int


@dataclass(frozen=True, slots=True)
class BinaryOp:
    """``left op right``; ``/`` floors (R10) and its right side is a non-zero constant."""

    op: Operator
    left: Node
    right: Node
    column: int


Node = DiceTerm | Number | Negate | BinaryOp


@dataclass(frozen=True, slots=True)
class Expression:
    """A whole parsed roll: the source text, the tree and its dice terms in draw order."""

    text: str
    root: Node
    terms: tuple[DiceTerm, ...]

    @property
    def dice_count(self) -> int:
        """Return how many dice the expression rolls before explosions and advantage."""
        return sum(t.count for t in self.terms)

"""A short human line for a roll: every die, the counted ones marked, and the outcome.

``1d20 (4, **17**) + 3[STR] + eased 2 = 22 vs 15: success``. Kept dice of a pool are
marked with the style's ``kept``, dropped and rerolled-away dice with ``dropped``, and an
explosion chain reads ``6!6!4!2`` (each ``!`` a maximum that added the next die).
"""

from __future__ import annotations

from typing import Protocol

from diceledger.domain.dice.ast import DiceTerm, Negate, Node, Number
from diceledger.domain.dice.breakdown import peel_divisions
from diceledger.domain.dice.checks import CheckOutcome
from diceledger.domain.dice.engine import Reason, RollState, term_slots
from diceledger.domain.dice.notation import format_expression

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


class Style(Protocol):
    """How kept and dropped dice are marked (plain text, ANSI, ...)."""

    def kept(self, text: str) -> str: ...

    def dropped(self, text: str) -> str: ...


class PlainStyle:
    """Markdown-like marks that survive copy and paste."""

    def kept(self, text: str) -> str:
        """Mark a counted die of a pool."""
        return f"**{text}**"

    def dropped(self, text: str) -> str:
        """Mark a die that does not count."""
        return f"~~{text}~~"


PLAIN = PlainStyle()


def _slot_text(state: RollState, slot: int, counted: bool, pool: bool, style: Style) -> str:
    history = [d for d in state.dice if d.slot == slot and d.reason is not Reason.EXPLOSION]
    shown = [style.dropped(str(d.face)) for d in history[:-1]]
    live = history[-1]
    faces = [live.face, *(state.dice[i].face for i in state.chains[live.index] or ())]
    text = "!".join(str(face) for face in faces)
    if pool:
        text = style.kept(text) if counted else style.dropped(text)
    return " ".join([*shown, text])


def _term_text(state: RollState, term: DiceTerm, style: Style) -> str:
    slots = term_slots(state.spec)[term.term]
    counted = set(state.counted_slots)
    pool = len(slots) > term.count  # a check pool: mark which die counts
    dice = ", ".join(_slot_text(state, s, s in counted, pool, style) for s in slots)
    return f"{format_expression(term)} ({dice})"


def _node_text(state: RollState, node: Node, style: Style, parent: int = 0) -> str:
    if isinstance(node, DiceTerm):
        return _term_text(state, node, style)
    if isinstance(node, Number):
        return format_expression(node)
    if isinstance(node, Negate):
        return "-" + _node_text(state, node.operand, style, 3)
    rank = _PRECEDENCE[node.op]
    left = _node_text(state, node.left, style, rank)
    right = _node_text(state, node.right, style, rank + (node.op in "-/"))
    text = f"{left} {node.op} {right}"
    return f"({text})" if rank < parent else text


def render_roll(state: RollState, style: Style = PLAIN) -> str:
    """Return one line with every die, the ease, the divisions and the total."""
    dividend, divisors = peel_divisions(state.spec.expression.root)
    text = _node_text(state, dividend, style)
    for name, sources in (("eased", state.spec.eased), ("hindered", state.spec.hindered)):
        for source in sources:
            sign = "+" if name == "eased" else "-"
            label = f"[{source.label}]" if source.label else ""
            text += f" {sign} {name} {source.amount}{label}"
    for divisor in divisors:
        text = f"({text}) / {divisor}"
    return f"{text} = {state.total}"


def render_check(state: RollState, outcome: CheckOutcome, style: Style = PLAIN) -> str:
    """Return the roll's line followed by the target and the outcome."""
    verdict = "success" if outcome.success else "failure"
    return f"{render_roll(state, style)} vs {outcome.target}: {verdict}"

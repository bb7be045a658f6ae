"""How a roll's total is made up, as data: its sources of advantage, ease and its summands.

A page shows these beside the dice, so a reader sees why a die counts (the advantage
score from its labelled sources) and what was added after it (modifiers, Eased, Hindered,
divisions), without parsing the one-line rendering.
"""

from __future__ import annotations

from collections.abc import Sequence

from diceledger.domain.dice.breakdown import breakdown
from diceledger.domain.dice.engine import RollState
from diceledger.domain.dice.request import Modifier
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.session import events as ev


def _sources(amounts: Sequence[ev.Amount | Modifier]) -> list[JsonValue]:
    return [{"amount": a.amount, "label": a.label} for a in amounts]


def side_sources(side: ev.CheckSide, median: bool) -> JsonObject:
    """Return one side's labelled sources and the advantage score they net to (R7-R9)."""
    score = sum(a.amount for a in side.advantage) - sum(a.amount for a in side.disadvantage)
    return {
        "advantage": _sources(side.advantage),
        "disadvantage": _sources(side.disadvantage),
        "score": score,
        "median": median,
        "eased": _sources(side.eased),
        "hindered": _sources(side.hindered),
    }


def summands(state: RollState) -> JsonObject:
    """Return the total taken apart: signed summands, Eased, Hindered and divisions."""
    taken = breakdown(state)
    parts: list[JsonValue] = [
        {"sign": p.sign, "kind": p.kind, "text": p.text, "value": p.value, "label": p.label}
        for p in taken.parts
    ]
    divisors: list[JsonValue] = list(taken.divisors)
    return {"parts": parts, "divisors": divisors}

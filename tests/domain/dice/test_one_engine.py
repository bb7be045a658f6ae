"""One engine rolls every die: first draws and rerolls alike, whatever the source."""

from __future__ import annotations

import ast
from pathlib import Path

import diceledger.domain.dice as dice_package
from diceledger.domain.dice.engine import reroll, start
from diceledger.domain.dice.sources import ManualSource, SeededSource
from tests.domain.dice.helpers import check

DICE = Path(dice_package.__file__).parent


def calls_of(name: str) -> list[ast.Call]:
    """Return every call of a function of that name in domain/dice."""
    return [
        node
        for module in sorted(DICE.glob("*.py"))
        for node in ast.walk(ast.parse(module.read_text(), str(module)))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name
    ]


def test_the_engine_never_asks_which_kind_of_source_it_draws_from() -> None:
    asked = [
        ast.unparse(call)
        for call in calls_of("isinstance")
        if any(n.id.endswith("Source") for n in ast.walk(call.args[1]) if isinstance(n, ast.Name))
    ]
    assert asked == []


def test_no_attribute_is_patched_onto_a_class_after_it_is_made() -> None:
    assert [ast.unparse(call) for call in calls_of("setattr")] == []


def test_seeded_and_typed_in_dice_give_states_of_one_kind() -> None:
    spec = check("1d20+1d6", adv=1)
    seeded = start(spec, SeededSource(bytes(32), "s", 1), rerolls=1)
    typed = start(spec, ManualSource([d.face for d in seeded.dice]), rerolls=1)
    assert [d.face for d in typed.dice] == [d.face for d in seeded.dice]
    assert (typed.total, typed.counted_slots, typed.chains) == (
        seeded.total,
        seeded.counted_slots,
        seeded.chains,
    )
    again = reroll(seeded, [seeded.live[0]], ManualSource([20, 3]))
    assert [d.draw.provenance.value for d in again.dice][-2:] == ["manual", "manual"]

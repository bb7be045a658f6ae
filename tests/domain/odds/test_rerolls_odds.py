"""R11: the exact odds under the default reroll policy match the engine, draw by draw.

The engine is run on every possible sequence of faces (a depth-first walk of the draws),
so the expected distribution comes from the rules as the engine resolves them.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from diceledger.domain.dice.engine import roll
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import CheckDie, Modifier, RollSpec
from diceledger.domain.dice.sources import Draw, OneAtATime, Provenance
from diceledger.domain.odds import distribution


class NeedsFace(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class ScriptedFaces(OneAtATime):
    """Hands out a fixed prefix of faces, then asks the walk to branch on the next die."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = faces
        self.used = 0

    def draw(self, sides: int) -> Draw:
        if self.used == len(self.faces):
            raise NeedsFace(sides)
        self.used += 1
        return Draw(sides, self.faces[self.used - 1], Provenance.MANUAL)


def engine_odds(
    spec: RollSpec, rerolls: int, max_draws: int
) -> tuple[dict[int, Fraction], Fraction]:
    """Return the engine's total distribution and the mass of paths longer than max_draws."""
    totals: dict[int, Fraction] = {}
    unexplored = Fraction(0)
    pending: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while pending:
        faces, mass = pending.pop()
        source = ScriptedFaces(faces)
        try:
            state = roll(spec, source, rerolls=rerolls)
        except NeedsFace as need:
            if len(faces) == max_draws:
                unexplored += mass
                continue
            share = mass / need.sides
            pending.extend((faces + (face,), share) for face in range(1, need.sides + 1))
            continue
        totals[state.total] = totals.get(state.total, Fraction(0)) + mass
    return totals, unexplored


@pytest.mark.parametrize(
    ("text", "check", "rerolls"),
    [
        ("1d6n+1d4n", None, 2),
        ("1d4n-1d6n+1d8n", None, 2),
        ("1d6n*1d4n", None, 3),
        ("1d8n-1d4n+1d6n", None, 3),
        ("1d4n+1d12n", None, 2),
        ("1d6n+1d4n", CheckDie(advantage=(Modifier(1),)), 2),
        ("1d4n", CheckDie(median=True, disadvantage=(Modifier(1),)), 2),
        ("(1d8n+1d4n)/2", None, 1),
    ],
)
def test_r11_default_policy_odds_equal_the_engine_on_every_draw(
    text: str, check: CheckDie | None, rerolls: int
) -> None:
    spec = RollSpec(parse(text), check=check, eased=(Modifier(1),))
    expected, unexplored = engine_odds(spec, rerolls, max_draws=12)
    assert unexplored == 0
    assert dict(distribution(spec, rerolls)) == expected


@pytest.mark.parametrize(
    ("text", "check"),
    [("1d4+1d6", None), ("1d6", CheckDie(advantage=(Modifier(1),)))],
)
def test_r11_r12_rerolled_dice_bring_new_chains_within_the_unexplored_mass(
    text: str, check: CheckDie | None
) -> None:
    spec = RollSpec(parse(text), check=check)
    expected, unexplored = engine_odds(spec, 1, max_draws=9)
    ours = distribution(spec, 1)
    slack = unexplored + ours.truncated_mass
    for total in set(expected) | set(ours):
        gap = ours.get(total, Fraction(0)) - expected.get(total, Fraction(0))
        assert 0 <= gap <= slack

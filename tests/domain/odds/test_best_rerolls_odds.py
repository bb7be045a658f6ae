"""R11: the best chance of success with rerolls, held equal to a walk of the engine.

The oracle plays the engine itself: it draws every possible face, tries every live base
die at every step, and keeps the better of stopping and each reroll. An explosion chain
never ends, so once one chain of a step is long enough that its die alone meets the
target, the walk ends it with a 1: success is certain whatever the rest would show, and
that is only sound because the tiny rolls here add no negative modifier.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import ceil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.engine import RollState, reroll, start
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import CheckDie, Modifier, RollSpec
from diceledger.domain.dice.sources import Draw, OneAtATime, Provenance
from diceledger.domain.errors import RollError
from diceledger.domain.odds import best_success, distribution


class NeedsFace(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class ScriptedFaces(OneAtATime):
    """Hands out a fixed prefix of faces, asks the walk to branch on the next, and past
    ``ends_chains_after`` draws ends every chain with a 1."""

    def __init__(self, faces: tuple[int, ...], ends_chains_after: int) -> None:
        self.faces = faces
        self.ends_chains_after = ends_chains_after
        self.used = 0

    def draw(self, sides: int) -> Draw:
        self.used += 1
        if self.used > self.ends_chains_after:
            return Draw(sides, 1, Provenance.MANUAL)
        if self.used > len(self.faces):
            raise NeedsFace(sides)
        return Draw(sides, self.faces[self.used - 1], Provenance.MANUAL)


Step = Callable[[ScriptedFaces], RollState]


def engine_best(spec: RollSpec, target: int, rerolls: int) -> Fraction:
    """Return the best chance of success by trying every reroll of every outcome."""
    # Past 2c chain draws in one step, some chain has c draws: its die shows >= 4c + 1.
    chain_draws = 2 * max(1, ceil(target / 4))

    def expect(step: Step, base_draws: int) -> Fraction:
        chance = Fraction(0)
        pending: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
        while pending:
            faces, mass = pending.pop()
            try:
                state = step(ScriptedFaces(faces, base_draws + chain_draws))
            except NeedsFace as need:
                share = mass / need.sides
                pending.extend((faces + (face,), share) for face in range(1, need.sides + 1))
                continue
            chance += mass * best(state)
        return chance

    def best(state: RollState) -> Fraction:
        if state.total >= target:
            return Fraction(1)
        choices = [Fraction(0)]  # stopping here fails
        if state.rerolls_left:
            for die in state.live:
                choices.append(expect(rerolling(state, die), 1))
        return max(choices)

    return expect(lambda faces: start(spec, faces, rerolls), len(spec.plan.sides))


def rerolling(state: RollState, die: int) -> Step:
    return lambda faces: reroll(state, [die], faces)


def check_die(score: int) -> CheckDie:
    advantage = (Modifier(score),) if score > 0 else ()
    return CheckDie(advantage, (Modifier(-score),) if score < 0 else ())


@st.composite
def tiny_rolls(draw: st.DrawFn) -> RollSpec:
    """One or two small dice (a plain roll, or a check with advantage or disadvantage)."""
    first, second = draw(st.sampled_from([4, 6])), draw(st.sampled_from([0, 4, 6]))
    modifier = draw(st.integers(0, 2))
    exploding = draw(st.booleans())
    if second:
        return RollSpec(parse(f"1d{first}+1d{second}+{modifier}"), exploding=exploding)
    score = draw(st.integers(-1, 1))
    check = check_die(score) if score else None
    return RollSpec(parse(f"1d{first}+{modifier}"), check=check, exploding=exploding)


@settings(max_examples=40, deadline=None)
@given(tiny_rolls(), st.integers(2, 14), st.integers(0, 2))
def test_r11_r12_best_reroll_odds_equal_the_engine_played_every_way(
    spec: RollSpec, target: int, rerolls: int
) -> None:
    assert best_success(spec, target, rerolls) == engine_best(spec, target, rerolls)


checks = st.builds(
    lambda sides, modifier, score, exploding: RollSpec(
        parse(f"1d{sides}+{modifier}"),
        check=check_die(score) if score else None,
        exploding=exploding,
    ),
    st.sampled_from([4, 6, 8, 10, 12, 20]),
    st.integers(-2, 5),
    st.integers(-1, 1),
    st.booleans(),
)
sums = st.builds(
    lambda count, sides, modifier: RollSpec(parse(f"{count}d{sides}+{modifier}")),
    st.integers(1, 2),
    st.sampled_from([4, 6, 8]),
    st.integers(-2, 3),
)


@settings(max_examples=40, deadline=None)
@given(st.one_of(checks, sums), st.integers(1, 24), st.integers(1, 2))
def test_r11_the_best_policy_never_does_worse_than_the_default(
    spec: RollSpec, target: int, rerolls: int
) -> None:
    assert best_success(spec, target, rerolls) >= distribution(spec, rerolls).at_least(target)


@settings(max_examples=40, deadline=None)
@given(st.one_of(checks, sums), st.integers(1, 24), st.integers(0, 1))
def test_r11_one_more_reroll_never_lowers_the_best_chance(
    spec: RollSpec, target: int, rerolls: int
) -> None:
    assert best_success(spec, target, rerolls) <= best_success(spec, target, rerolls + 1)


@settings(max_examples=40, deadline=None)
@given(st.one_of(checks, sums), st.integers(-2, 30))
def test_r3_with_no_reroll_the_best_chance_is_the_plain_chance(spec: RollSpec, target: int) -> None:
    assert best_success(spec, target, 0) == distribution(spec).at_least(target)


def test_r11_rerolling_any_failing_d20_against_13_gives_64_percent() -> None:
    spec = RollSpec(parse("1d20"))
    assert distribution(spec, 1).at_least(13) == Fraction(3, 5)  # rerolls only 1-10
    assert best_success(spec, 13, 1) == Fraction(16, 25)  # rerolls 1-12


def test_r12_the_best_policy_rerolls_an_exploded_die_that_still_falls_short() -> None:
    # 1d6 at 6+3 = 9 fails 20 but a fresh die may still reach it; the default never
    # rerolls a 6, so only the best policy gains there.
    spec = RollSpec(parse("1d6"))
    assert best_success(spec, 20, 1) > distribution(spec, 1).at_least(20)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("1d20-1d4", "dice are subtracted"),
        ("1d6*1d6", "two dice totals are multiplied"),
        ("1d6*(-2)", "below 1"),
    ],
)
def test_r11_best_odds_refuse_a_total_that_a_higher_die_can_lower(text: str, why: str) -> None:
    with pytest.raises(RollError, match=why):
        best_success(RollSpec(parse(text)), 5, 1)


def test_r11_best_odds_refuse_more_dice_than_they_can_follow_exactly() -> None:
    with pytest.raises(RollError, match="too many dice for exact odds"):
        best_success(RollSpec(parse("10d6")), 40, 3)

"""The exact engine agrees with icepool, fraction for fraction, across the ruleset (R7-R13)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from diceledger.domain.dice.ladder import SIZES
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import CheckDie, Modifier, RollSpec
from diceledger.domain.odds import distribution
from tests.domain.odds import icepool_model


def check(score: int, median: bool = False) -> CheckDie:
    advantage = (Modifier(score),) if score > 0 else ()
    disadvantage = (Modifier(-score),) if score < 0 else ()
    return CheckDie(advantage=advantage, disadvantage=disadvantage, median=median)


def assert_agrees(spec: RollSpec) -> None:
    expected = icepool_model.probabilities(icepool_model.total(spec))
    assert dict(distribution(spec)) == expected


@pytest.mark.parametrize("sides", SIZES)
@pytest.mark.parametrize("score", range(-3, 4))
def test_r7_advantage_score_check_on_every_die(sides: int, score: int) -> None:
    assert_agrees(RollSpec(parse(f"1d{sides}+2"), check=check(score)))


@pytest.mark.parametrize("sides", SIZES)
@pytest.mark.parametrize("score", range(-2, 3))
def test_r8_median_check_on_every_die(sides: int, score: int) -> None:
    assert_agrees(RollSpec(parse(f"1d{sides}-1"), check=check(score, median=True)))


@pytest.mark.parametrize("sides", SIZES)
def test_r12_explosion_ladder_from_every_die(sides: int) -> None:
    assert_agrees(RollSpec(parse(f"2d{sides}")))


@pytest.mark.parametrize("sides", SIZES)
def test_r13_non_exploding_dice_from_the_marker_and_the_request(sides: int) -> None:
    assert_agrees(RollSpec(parse(f"2d{sides}n+1d{sides}")))
    assert_agrees(RollSpec(parse(f"2d{sides}+1"), exploding=False))


@pytest.mark.parametrize(
    ("text", "score", "eased", "hindered"),
    [
        ("1d20+3", 1, 2, 0),
        ("1d20+3", -1, 0, 4),
        ("1d20+1d4", 2, 3, 1),
        ("(1d20+3)/2", 1, 2, 0),
        ("(2d6+3)/2", None, 1, 0),
        ("(2d6+3)/2", None, 0, 3),
    ],
)
def test_r9_eased_and_hindered(text: str, score: int | None, eased: int, hindered: int) -> None:
    spec = RollSpec(
        parse(text),
        check=None if score is None else check(score),
        eased=(Modifier(eased),),
        hindered=(Modifier(hindered),),
    )
    assert_agrees(spec)


@pytest.mark.parametrize(
    "text", ["(2d6+3)/2", "(1d20-12)/3", "-1d8/3", "1d10*2-1d4", "(3d4-8)/2/2", "1d6*1d4"]
)
def test_r10_division_and_products_round_down(text: str) -> None:
    assert_agrees(RollSpec(parse(text), eased=(Modifier(1),)))


def test_r7_check_die_is_multiplied_while_other_dice_are_rolled_once() -> None:
    assert_agrees(RollSpec(parse("1d4+1d20+2d6"), check=check(2)))


def test_r12_cut_chain_is_within_its_truncated_mass_of_a_much_deeper_chain() -> None:
    spec = RollSpec(parse("1d4+1d6"))
    ours = distribution(spec)
    deeper = icepool_model.probabilities(icepool_model.total(spec, cut=Fraction(1, 10**30)))
    difference = sum(abs(ours.get(t, Fraction(0)) - p) for t, p in deeper.items())
    assert 0 < ours.truncated_mass < Fraction(2, 10**15)
    # Moving the cut mass changes at most twice that mass in total variation.
    assert difference <= 2 * ours.truncated_mass

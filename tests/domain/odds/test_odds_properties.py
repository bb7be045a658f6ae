"""Properties of exact odds that hold for any roll."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.ladder import SIZES
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import CheckDie, Modifier, RollSpec
from diceledger.domain.odds import distribution, opposed_odds

terms = st.builds(
    lambda count, sides, marker: f"{count}d{sides}{marker}",
    st.integers(1, 3),
    st.sampled_from(SIZES),
    st.sampled_from(["", "n"]),
)
numbers = st.integers(-5, 5).map(lambda n: f"({n})")


@st.composite
def plain_expressions(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(terms, numbers), min_size=1, max_size=3))
    signs = draw(st.lists(st.sampled_from("+-"), min_size=len(parts) - 1, max_size=3))
    text = parts[0]
    for sign, part in zip(signs, parts[1:], strict=False):
        text += sign + part
    return text


def check_die(score: int, median: bool) -> CheckDie:
    advantage = (Modifier(score),) if score > 0 else ()
    disadvantage = (Modifier(-score),) if score < 0 else ()
    return CheckDie(advantage, disadvantage, median)


def check_spec(sides: int, modifier: int, score: int, median: bool) -> RollSpec:
    return RollSpec(parse(f"1d{sides}+({modifier})"), check=check_die(score, median))


@settings(max_examples=60, deadline=None)
@given(plain_expressions())
def test_r12_probabilities_sum_to_one_and_cut_mass_stays_tiny(text: str) -> None:
    dist = distribution(RollSpec(parse(text)))
    assert sum(dist.values()) == 1
    dice = parse(text).dice_count
    assert 0 <= dist.truncated_mass <= Fraction(dice, 10**15)


@settings(max_examples=60, deadline=None)
@given(plain_expressions(), st.integers(0, 4), st.integers(0, 4))
def test_r9_ease_moves_every_total_by_its_net_amount(text: str, eased: int, hindered: int) -> None:
    base = distribution(RollSpec(parse(text)))
    moved = distribution(
        RollSpec(parse(text), eased=(Modifier(eased),), hindered=(Modifier(hindered),))
    )
    assert dict(moved) == {t + eased - hindered: p for t, p in base.items()}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SIZES), st.integers(-3, 3), st.integers(-3, 2), st.booleans())
def test_r7_r8_more_advantage_never_lowers_any_chance(
    sides: int, modifier: int, score: int, median: bool
) -> None:
    lower = distribution(check_spec(sides, modifier, score, median))
    higher = distribution(check_spec(sides, modifier, score + 1, median))
    for target in range(lower.lowest, higher.highest + 2):
        assert higher.at_least(target) >= lower.at_least(target)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(SIZES),
    st.integers(-3, 3),
    st.integers(-2, 2),
    st.sampled_from(SIZES),
    st.integers(-3, 3),
    st.integers(-2, 2),
)
def test_r6_opposed_odds_mirror_each_other_and_someone_wins(
    sides_a: int, mod_a: int, score_a: int, sides_b: int, mod_b: int, score_b: int
) -> None:
    a = check_spec(sides_a, mod_a, score_a, False)
    b = check_spec(sides_b, mod_b, score_b, False)
    forward, backward = opposed_odds(a, b), opposed_odds(b, a)
    assert forward.win + forward.lose == 1
    assert (forward.win, forward.tie) == (backward.lose, backward.tie)


small_terms = st.builds(
    lambda count, sides, marker: f"{count}d{sides}{marker}",
    st.integers(1, 2),
    st.sampled_from(SIZES[:-1]),
    st.sampled_from(["", "n"]),
)


@settings(max_examples=25, deadline=None)
@given(small_terms, st.sampled_from("+-*"), small_terms, st.integers(1, 2))
def test_r11_rerolled_distributions_are_whole_and_zero_rerolls_change_nothing(
    left: str, op: str, right: str, rerolls: int
) -> None:
    spec = RollSpec(parse(left + op + right))
    assert dict(distribution(spec, 0)) == dict(distribution(spec))
    assert sum(distribution(spec, rerolls).values()) == 1

"""Hand-checked odds, each traced to the rule it exercises."""

from __future__ import annotations

from fractions import Fraction

import pytest

from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import CheckDie, Modifier, RollSpec, Target
from diceledger.domain.errors import RollError
from diceledger.domain.odds import distribution, opposed_odds, success_probability

ADV_1 = CheckDie(advantage=(Modifier(1),))
DIS_1 = CheckDie(disadvantage=(Modifier(1),))


def test_r3_r7_d20_plus_5_with_advantage_meets_15_in_319_of_400() -> None:
    # Needs a 10 on either of two d20s: 1 - (9/20)^2.
    spec = RollSpec(parse("1d20+5"), check=ADV_1)
    assert success_probability(spec, 15) == Fraction(319, 400)


def test_r7_disadvantage_needs_both_dice_to_make_it() -> None:
    spec = RollSpec(parse("1d20+5"), check=DIS_1)
    assert success_probability(spec, 15) == Fraction(11, 20) ** 2


def test_r7_sources_of_advantage_and_disadvantage_net_out() -> None:
    netted = CheckDie(advantage=(Modifier(2), Modifier(1)), disadvantage=(Modifier(2),))
    spec = RollSpec(parse("1d20+5"), check=netted)
    assert success_probability(spec, 15) == Fraction(319, 400)


def test_r4_dc_target_is_ten_plus_the_modifier() -> None:
    spec = RollSpec(parse("1d20+5"), check=ADV_1)
    assert success_probability(spec, Target.dc(5).value) == Fraction(319, 400)


def test_r8_median_of_three_d20_is_at_least_11_half_the_time() -> None:
    spec = RollSpec(parse("1d20"), check=CheckDie(median=True))
    assert distribution(spec).at_least(11) == Fraction(1, 2)


def test_r8_median_with_advantage_counts_the_second_highest_of_four() -> None:
    # Second-highest of four >= 11 when at least two of four coins come up high.
    spec = RollSpec(parse("1d20"), check=CheckDie(median=True, advantage=(Modifier(1),)))
    assert distribution(spec).at_least(11) == 1 - Fraction(5, 16)


def test_r9_ease_joins_what_a_trailing_division_divides() -> None:
    spec = RollSpec(parse("(2d6n+3)/2"), eased=(Modifier(2),))
    dist = distribution(spec)
    # floor((2 + 3 + 2) / 2) = 3 is the lowest; adding after the division would give 4.
    assert dist.lowest == 3
    assert dist[3] == Fraction(1, 36)
    assert dist[8] == Fraction(3, 36)


def test_r9_hindered_lowers_every_total_of_a_plain_roll() -> None:
    plain = distribution(RollSpec(parse("1d8+1")))
    hindered = distribution(RollSpec(parse("1d8+1"), hindered=(Modifier(3), Modifier(1))))
    assert {t - 4: p for t, p in plain.items()} == dict(hindered)


def test_r10_division_of_a_negative_total_rounds_down() -> None:
    dist = distribution(RollSpec(parse("-1d8n/3")))
    assert dict(dist) == {-3: Fraction(2, 8), -2: Fraction(3, 8), -1: Fraction(3, 8)}


def test_r12_exploding_d6_mean_is_451_over_108() -> None:
    # E = 15/6 + (6 + E[chain]) / 6, the chain being d6 then d4s: E[chain] = 73/18.
    dist = distribution(RollSpec(parse("1d6")))
    assert abs(dist.mean - Fraction(451, 108)) < Fraction(1, 10**12)
    assert 0 < dist.truncated_mass < Fraction(1, 10**15)


def test_r12_d6_showing_6_6_4_2_totals_18_once_in_576() -> None:
    assert distribution(RollSpec(parse("1d6")))[18] == Fraction(1, 6 * 6 * 4 * 4)


def test_r12_r13_marked_dice_never_pass_their_maximum() -> None:
    assert distribution(RollSpec(parse("2d6n"))).highest == 12
    assert distribution(RollSpec(parse("2d6"), exploding=False)).highest == 12
    assert distribution(RollSpec(parse("2d6"))).highest > 12


def test_r13_only_the_counted_die_of_a_pool_explodes() -> None:
    # With disadvantage the lower die counts: it explodes only when both show 20.
    above_20 = 1 - distribution(RollSpec(parse("1d20"), check=DIS_1)).at_most(20)
    assert above_20 == Fraction(1, 400)
    above_20 = 1 - distribution(RollSpec(parse("1d20"), check=ADV_1)).at_most(20)
    assert above_20 == Fraction(39, 400)


def test_r6_equal_sides_win_half_of_opposed_checks() -> None:
    plain = RollSpec(parse("1d20n"), check=CheckDie())
    odds = opposed_odds(plain, plain)
    assert (odds.win, odds.lose, odds.tie) == (Fraction(1, 2), Fraction(1, 2), Fraction(1, 20))
    exploding = RollSpec(parse("1d20+2"), check=CheckDie(advantage=(Modifier(1),)))
    odds = opposed_odds(exploding, exploding)
    assert odds.win == odds.lose == Fraction(1, 2)


def test_r6_opposed_odds_reroll_ties_until_someone_wins() -> None:
    a = RollSpec(parse("1d20n+1"), check=CheckDie())
    b = RollSpec(parse("1d20n"), check=CheckDie())
    wins = sum(1 for x in range(1, 21) for y in range(1, 21) if x + 1 > y)
    ties = sum(1 for x in range(1, 21) for y in range(1, 21) if x + 1 == y)
    odds = opposed_odds(a, b)
    assert odds.tie == Fraction(ties, 400)
    assert odds.win == Fraction(wins, 400 - ties)
    assert odds.win + odds.lose == 1


def test_r6_sides_that_always_tie_are_refused() -> None:
    spec = RollSpec(parse("3"))
    with pytest.raises(RollError, match="always tie"):
        opposed_odds(spec, spec)


def test_r11_default_policy_rerolls_a_low_d20_once() -> None:
    # Below 10.5 (faces 1-10) the d20 is rerolled once: P(>= 15) = 1/2 * 6/20 + 6/20.
    spec = RollSpec(parse("1d20n"))
    assert success_probability(spec, 15, rerolls=1) == Fraction(9, 20)


def test_same_roll_parsed_twice_or_spelled_differently_hits_the_cache() -> None:
    first = RollSpec(parse("1d20 + 5[STR]"), check=ADV_1)
    second = RollSpec(parse("1d20+5"), check=CheckDie(advantage=(Modifier(1, "bless"),)))
    assert distribution(first) is distribution(second)


def test_r7_success_chance_of_a_reparsed_check_comes_from_the_same_distribution() -> None:
    first = RollSpec(parse("1d20 + 5"), check=ADV_1)
    second = RollSpec(parse("1d20+5[STR]"), check=ADV_1)
    assert success_probability(first, 15) == success_probability(second, 15) == Fraction(319, 400)
    assert distribution(first) is distribution(second)


def test_a_refused_roll_is_refused_again_with_the_same_reason() -> None:
    spec = RollSpec(parse("100d20n*100d20n"))
    with pytest.raises(RollError) as first:
        distribution(spec)
    with pytest.raises(RollError) as again:
        success_probability(spec, 3)
    assert str(first.value) == str(again.value)


def test_rolls_too_big_for_exact_odds_are_refused_not_hung() -> None:
    text = "+".join(["100d20"] * 3)
    with pytest.raises(RollError, match="too many dice for exact odds"):
        distribution(RollSpec(parse(text)))
    with pytest.raises(RollError, match="too many dice for exact odds"):
        distribution(RollSpec(parse("20d20n")), rerolls=3)
    with pytest.raises(RollError, match="too many dice for exact odds"):
        distribution(RollSpec(parse("100d20n*100d20n")))


def test_negative_reroll_allowance_is_refused() -> None:
    with pytest.raises(RollError, match="negative"):
        distribution(RollSpec(parse("1d6")), rerolls=-1)

"""Hand-checked examples for each rule the engine resolves (R3-R14)."""

from __future__ import annotations

import pytest

from diceledger.domain.dice.breakdown import die_views
from diceledger.domain.dice.checks import MAX_OPPOSED_ROUNDS, judge, opposed
from diceledger.domain.dice.engine import Reason, RollState, accept, reroll, roll, start
from diceledger.domain.dice.request import Target
from diceledger.domain.dice.sources import ManualSource
from diceledger.domain.errors import ExplosionChainError, ManualFacesError, RerollError, RollError
from tests.domain.dice.helpers import AlwaysMax, FacesThenOnes, check, mods, plain


def faces_of(state: RollState) -> list[int]:
    return [d.face for d in state.dice]


def test_r3_check_succeeds_when_total_meets_target() -> None:
    state = roll(check("1d20+3"), ManualSource([12]))
    assert judge(state.total, Target(15)) == judge(15, Target(15))
    outcome = judge(state.total, Target(15))
    assert (outcome.success, outcome.margin) == (True, 0)
    assert judge(14, Target(15)).success is False
    assert judge(14, Target(15)).margin == -1


def test_r4_dc_target_is_ten_plus_modifier_and_keeps_its_inputs() -> None:
    target = Target.dc(3, "WIS")
    assert (target.value, target.dc_modifier, target.dc_label, target.is_dc) == (13, 3, "WIS", True)
    assert Target.dc(-2).value == 8


def test_r6_opposed_check_that_ties_twice_keeps_three_rounds() -> None:
    source = ManualSource([10, 8, 5, 3, 12, 4])
    rounds = opposed(check("1d20"), check("1d20+2"), source)
    assert [(r.first.total, r.second.total) for r in rounds] == [(10, 10), (5, 5), (12, 6)]
    assert [r.winner for r in rounds] == [None, None, 0]


def test_r6_opposed_check_stops_with_an_error_after_the_round_cap() -> None:
    source = ManualSource([7] * (2 * MAX_OPPOSED_ROUNDS))
    with pytest.raises(RollError, match="tied 100 rounds"):
        opposed(check("1d20"), check("1d20"), source)


def test_r7_advantage_two_and_disadvantage_one_roll_two_dice_and_keep_the_higher() -> None:
    state = roll(check("1d20+1", adv=2, dis=1), ManualSource([4, 17]))
    assert state.spec.check is not None and state.spec.check.score == 1
    assert faces_of(state) == [4, 17]
    assert state.total == 18


def test_r7_disadvantage_keeps_the_lowest_of_score_plus_one_dice() -> None:
    state = roll(check("1d20", dis=2), ManualSource([9, 3, 15]))
    assert state.total == 3


def test_r7_only_the_check_die_is_multiplied() -> None:
    state = roll(check("1d20+1d4", adv=1), ManualSource([5, 11, 3]))
    assert [d.sides for d in state.dice] == [20, 20, 4]
    assert state.total == 14


def test_r7_advantage_on_a_plain_roll_is_refused() -> None:
    with pytest.raises(RollError, match="apply to checks"):
        plain("2d6", advantage=mods(1))


def test_r8_median_of_three_counts_the_middle_face() -> None:
    assert roll(check("1d20", median=True), ManualSource([2, 11, 17])).total == 11


def test_r8_median_with_advantage_two_counts_the_second_highest_of_five() -> None:
    state = roll(check("1d20", adv=2, median=True), ManualSource([3, 19, 11, 8, 15]))
    assert state.total == 15


def test_r8_median_with_disadvantage_one_counts_the_second_lowest_of_four() -> None:
    assert roll(check("1d20", dis=1, median=True), ManualSource([3, 19, 11, 8])).total == 8


def test_r9_eased_and_hindered_sources_add_up_after_the_counted_die() -> None:
    spec = check("1d20+2", adv=1, eased=mods(2, 1), hindered=mods(4))
    assert roll(spec, ManualSource([10, 6])).total == 10 + 2 + 3 - 4


def test_r9_ease_enters_before_a_trailing_division() -> None:
    spec = plain("(2d6+3)/2", eased=mods(2))
    assert roll(spec, ManualSource([3, 4])).total == (3 + 4 + 3 + 2) // 2


def test_r10_division_rounds_down_also_for_negatives() -> None:
    assert roll(plain("(1d4-8)/2"), ManualSource([1])).total == -4
    assert roll(plain("(1d4+6)/2"), ManualSource([1])).total == 3


def test_r11_reroll_replaces_the_die_and_discards_its_chain() -> None:
    state = start(plain("1d6+1"), ManualSource([6, 2]), rerolls=1)
    assert state.total == 9 and state.awaiting_decision
    state = reroll(state, [0], ManualSource([3]))
    assert state.total == 4 and state.rerolls_left == 0
    views = die_views(state)
    assert [(v.die.face, v.die.reason, v.discarded) for v in views] == [
        (6, Reason.INITIAL, True),
        (2, Reason.EXPLOSION, True),
        (3, Reason.REROLL, False),
    ]
    assert views[2].die.parent == 0


def test_r11_a_rerolled_die_may_explode() -> None:
    state = start(plain("1d8"), ManualSource([2]), rerolls=1)
    state = reroll(state, [0], ManualSource([8, 5]))
    assert state.total == 13


def test_r11_spending_more_than_the_allowance_is_refused_and_changes_nothing() -> None:
    state = start(plain("2d6"), ManualSource([1, 2]), rerolls=1)
    with pytest.raises(RerollError, match="2 rerolls asked, 1 left"):
        reroll(state, [0, 1], ManualSource([5, 5]))
    assert state.rerolls_left == 1 and faces_of(state) == [1, 2]


def test_r11_an_explosion_die_cannot_be_chosen() -> None:
    state = start(plain("1d6"), ManualSource([6, 1]), rerolls=1)
    with pytest.raises(RerollError, match="explosion of die 0"):
        reroll(state, [1], ManualSource([4]))


def test_r11_a_rerolled_die_can_be_rerolled_again_through_its_new_die() -> None:
    state = start(plain("1d6"), ManualSource([1]), rerolls=2)
    state = reroll(state, [0], ManualSource([2]))
    with pytest.raises(RerollError, match="already rerolled; its new die is 1"):
        reroll(state, [0], ManualSource([3]))
    assert reroll(state, [1], ManualSource([3])).total == 3


def test_r11_reroll_of_a_check_die_chooses_the_counted_die_again() -> None:
    state = start(check("1d20", adv=1), ManualSource([3, 17]), rerolls=1)
    state = reroll(state, [0], ManualSource([20, 5]))
    assert state.total == 25
    assert [v.counted for v in die_views(state)] == [False, False, True, True]


def test_r11_default_policy_rerolls_the_lowest_die_while_below_average() -> None:
    state = roll(plain("2d6"), ManualSource([1, 5, 2, 6, 3]), rerolls=2)
    assert state.total == 5 + 6 + 3
    assert state.rerolls_left == 0 and state.accepted


def test_r11_default_policy_accepts_when_the_lowest_die_is_at_least_average() -> None:
    state = roll(plain("2d6"), ManualSource([4, 5]), rerolls=3)
    assert (state.total, state.rerolls_left) == (9, 3)


def test_r11_an_accepted_roll_cannot_be_rerolled() -> None:
    state = accept(start(plain("1d6"), ManualSource([1]), rerolls=1))
    with pytest.raises(RerollError, match="already resolved"):
        reroll(state, [0], ManualSource([4]))


def test_r12_d6_showing_6_6_4_2_steps_down_to_d4_and_totals_18() -> None:
    state = roll(plain("1d6"), ManualSource([6, 6, 4, 2]))
    assert [d.sides for d in state.dice] == [6, 6, 4, 4]
    assert [d.step for d in state.dice] == [0, 1, 2, 3]
    assert state.total == 18


def test_r12_d20_chain_walks_the_whole_ladder() -> None:
    faces = [20, 20, 12, 10, 8, 6, 4, 4, 1]
    state = roll(plain("1d20"), ManualSource(faces))
    assert [d.sides for d in state.dice] == [20, 20, 12, 10, 8, 6, 4, 4, 4]
    assert state.total == sum(faces)


def test_r12_a_chain_past_the_cap_is_an_error_not_a_hang() -> None:
    with pytest.raises(ExplosionChainError, match="more than 100"):
        roll(plain("1d4"), AlwaysMax())


def test_r13_marked_dice_do_not_explode() -> None:
    assert roll(plain("1d6n+1d6"), ManualSource([6, 6, 1])).total == 13
    assert roll(plain("1d6", exploding=False), ManualSource([6])).total == 6


def test_r13_only_the_counted_die_of_a_pool_explodes() -> None:
    state = roll(check("1d20", dis=1), ManualSource([20, 5]))
    assert len(state.dice) == 2 and state.total == 5


def test_r13_equal_faces_count_the_lowest_index() -> None:
    state = roll(check("1d20", adv=1), ManualSource([20, 20, 3]))
    counted = [v.die.index for v in die_views(state) if v.counted]
    assert counted == [0, 2]
    assert state.dice[2].parent == 0


def test_r13_a_chain_stays_with_its_die_and_is_not_rolled_twice() -> None:
    source = FacesThenOnes([20, 20, 7, 5, 20])
    state = start(check("1d20", dis=1), source, rerolls=2)
    assert state.total == 27  # die 0 counts (lowest index) and explodes into 7
    state = reroll(state, [1], source)
    assert state.total == 5  # die 1 now counts; die 0 keeps its chain, uncounted
    assert [(v.counted, v.discarded) for v in die_views(state)][:3] == [
        (False, False),
        (False, True),
        (False, False),
    ]
    state = reroll(state, [3], source)
    assert state.total == 27  # die 0 counts again with the same chain
    assert len(state.dice) == 5


def test_r14_explosions_follow_all_initial_dice() -> None:
    state = roll(plain("1d6+1d8"), ManualSource([6, 7, 5]))
    assert [(d.sides, d.reason) for d in state.dice] == [
        (6, Reason.INITIAL),
        (8, Reason.INITIAL),
        (6, Reason.EXPLOSION),
    ]
    assert state.total == 18


def test_manual_faces_out_of_range_name_the_die() -> None:
    with pytest.raises(ManualFacesError, match="face 7 for die 1 is not on a d6"):
        roll(plain("1d6"), ManualSource([7]))


def test_manual_faces_running_out_name_the_die_needed_next() -> None:
    with pytest.raises(ManualFacesError, match=r"die 2 \(a d6\) needs one more face"):
        roll(plain("1d6"), ManualSource([6]))


def test_manual_faces_left_over_are_refused() -> None:
    source = ManualSource([3, 4, 5])
    roll(plain("2d6"), source)
    with pytest.raises(ManualFacesError, match="used 2, 1 left over"):
        source.finish()


def test_r14_reroll_then_fresh_choice_then_explosion_of_the_newly_counted_die() -> None:
    state = start(check("1d20", adv=1), ManualSource([6, 9]), rerolls=1)
    state = reroll(state, [1], ManualSource([20, 12]))
    # The new 20 outranks the 6, counts, and only then explodes: one d20 showing 12.
    assert [(d.sides, d.face, d.reason) for d in state.dice] == [
        (20, 6, Reason.INITIAL),
        (20, 9, Reason.INITIAL),
        (20, 20, Reason.REROLL),
        (20, 12, Reason.EXPLOSION),
    ]
    assert state.total == 32


def test_r14_ease_before_division_and_the_target_compared_last() -> None:
    spec = check("(1d20+3)/2", eased=mods(2))
    state = roll(spec, ManualSource([15]))
    assert state.total == (15 + 3 + 2) // 2
    assert judge(state.total, Target(10)).success is True
    assert judge(state.total, Target(11)).success is False

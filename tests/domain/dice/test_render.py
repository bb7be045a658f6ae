"""The one-line rendering a player reads after a roll."""

from __future__ import annotations

from diceledger.domain.dice.checks import judge
from diceledger.domain.dice.engine import reroll, roll, start
from diceledger.domain.dice.render import render_check, render_roll
from diceledger.domain.dice.request import Modifier, Target
from diceledger.domain.dice.sources import ManualSource
from tests.domain.dice.helpers import check, plain


def test_check_line_marks_the_kept_die_and_names_the_outcome() -> None:
    state = roll(check("1d20+3[STR]", adv=1, eased=(Modifier(2),)), ManualSource([4, 17]))
    line = render_check(state, judge(state.total, Target(15)))
    assert line == "1d20 (~~4~~, **17**) + 3[STR] + eased 2 = 22 vs 15: success"


def test_explosions_read_as_chains_and_ease_sits_before_a_trailing_division() -> None:
    state = roll(plain("(2d6+3)/2", hindered=(Modifier(1, "mud"),)), ManualSource([6, 5, 4]))
    assert render_roll(state) == "(2d6 (6!4, 5) + 3 - hindered 1[mud]) / 2 = 8"


def test_rerolled_faces_stay_visible_but_struck() -> None:
    state = reroll(start(plain("2d6"), ManualSource([1, 4]), rerolls=1), [0], ManualSource([5]))
    assert render_roll(state) == "2d6 (~~1~~ 5, 4) = 9"

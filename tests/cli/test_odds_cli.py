"""``diceledger odds`` as a user runs it: exact chances, histogram, JSON and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction

import pytest
from click.testing import CliRunner, Result

from diceledger.cli.main import cli


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    monkeypatch.setenv("NO_COLOR", "1")
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, list(args))

    return invoke


def test_r7_advantage_check_prints_319_of_400_mean_and_totals(run: Callable[..., Result]) -> None:
    result = run("odds", "1d20+5", "--target", "15", "--adv", "1")
    assert result.exit_code == 0, result.output
    assert "319/400 (79.75%)" in result.output
    assert "mean" in result.output
    # Explosions reach past a plain d20's 25: the tail row is grouped as ">=N".
    assert ">=" in result.output
    assert all(len(line) <= 80 for line in result.output.splitlines())


def test_r4_dc_gives_the_same_chance_as_its_target(run: Callable[..., Result]) -> None:
    by_dc = run("odds", "1d20+5", "--dc", "5", "--adv", "1")
    assert "319/400 (79.75%)" in by_dc.output


def test_json_gives_exact_fractions_and_floats(run: Callable[..., Result]) -> None:
    result = run("odds", "1d20+5", "--target", "15", "--adv", "2", "--dis", "1", "--json")
    payload = json.loads(result.output)
    assert payload["success"] == {"fraction": "319/400", "float": 0.7975}
    total = sum(Fraction(row["fraction"]) for row in payload["distribution"])
    assert total == 1


def test_global_json_flag_is_honoured(run: Callable[..., Result]) -> None:
    payload = json.loads(run("--json", "odds", "2d6n").output)
    assert Fraction(payload["mean"]["fraction"]) == 7
    assert payload["truncated_mass"]["fraction"] == "0"


def test_r8_r9_median_and_eased_change_the_chance(run: Callable[..., Result]) -> None:
    median = json.loads(run("odds", "1d20", "--median", "--target", "11", "--json").output)
    assert median["success"]["fraction"] == "1/2"
    eased = json.loads(
        run("odds", "1d20n", "--target", "11", "--eased", "1", "--eased", "1", "--json").output
    )
    assert eased["success"]["fraction"] == "3/5"


def test_r11_reroll_allowance_raises_the_chance(run: Callable[..., Result]) -> None:
    payload = json.loads(
        run("odds", "1d20", "--no-explode", "--target", "15", "--reroll", "1", "--json").output
    )
    assert payload["success"]["fraction"] == "9/20"


def test_r6_opposed_check_shows_win_lose_and_tie(run: Callable[..., Result]) -> None:
    result = run("odds", "1d20n", "--vs", "1d20n")
    assert result.exit_code == 0, result.output
    assert "win   1/2 (50.00%)" in result.output
    assert "tie   1/20 (5.00%)" in result.output
    payload = json.loads(run("odds", "1d20+2", "--vs", "1d20", "--vs-adv", "1", "--json").output)
    assert Fraction(payload["win"]["fraction"]) + Fraction(payload["lose"]["fraction"]) == 1


def test_r6_r11_opposed_odds_follow_each_sides_rerolls_through_tied_rounds(
    run: Callable[..., Result],
) -> None:
    args = ("odds", "1d6n", "--vs", "1d4n+1", "--reroll", "2", "--vs-reroll", "1")
    payload = json.loads(run(*args, "--json").output)
    # The same fraction the brute force gives (tests/domain/odds/test_opposed_rerolls_odds.py).
    assert payload["win"]["fraction"] == "933/1331"
    assert (payload["roll"], payload["versus"]) == ("1d6n, reroll 2", "1d4n+1, reroll 1")
    text = run(*args).output
    assert text.splitlines()[0] == "1d6n, reroll 2  versus  1d4n+1, reroll 1"
    assert "win   933/1331 (70.10%)" in text
    assert "in the first round, then both roll again" in text


def test_bad_notation_is_one_line_and_exit_1(run: Callable[..., Result]) -> None:
    result = run("odds", "1d20+5x")
    assert result.exit_code == 1
    assert result.output.strip() == "Error: unexpected 'x' at column 7"


def test_too_big_a_roll_is_refused_with_exit_1(run: Callable[..., Result]) -> None:
    result = run("odds", "100d20*100d20")
    assert result.exit_code == 1
    assert "too many dice for exact odds" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ("1d20", "--target", "3", "--dc", "1"),
        ("1d20", "--vs", "1d20", "--target", "3"),
        ("1d20", "--vs-adv", "1"),
        ("1d20", "--vs-reroll", "1"),
        ("1d20", "--adv", "-1"),
    ],
)
def test_conflicting_options_are_usage_errors(
    run: Callable[..., Result], args: tuple[str, ...]
) -> None:
    assert run("odds", *args).exit_code == 2


def test_r3_target_on_a_roll_without_a_single_die_gives_p_total_at_least(
    run: Callable[..., Result],
) -> None:
    result = run("odds", "2d6n", "--target", "7")
    assert result.exit_code == 0, result.output
    assert "7/12 (58.33%)" in result.output


def test_r7_advantage_needs_a_single_check_die(run: Callable[..., Result]) -> None:
    result = run("odds", "2d6", "--adv", "1")
    assert result.exit_code == 1
    assert "a check needs a single check die" in result.output


def test_r1_odds_of_a_plain_roll_without_a_check_die(run: Callable[..., Result]) -> None:
    result = run("odds", "(2d6+3)/2", "--eased", "1")
    assert result.exit_code == 0, result.output
    assert "success" not in result.output


def test_help_shows_an_example(run: Callable[..., Result]) -> None:
    result = run("odds", "--help")
    assert 'diceledger odds "1d20+5" --target 15 --adv 1' in result.output


def test_odds_command_does_not_load_the_database_layer() -> None:
    code = "import sys, cli.odds; sys.exit('sqlalchemy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_r11_odds_with_rerolls_say_the_policy_they_assume(run: Callable[..., Result]) -> None:
    # 1d20 vs 13 with one reroll: 60.0% under the default policy (reroll below average),
    # while rerolling any failure would give 64%: a figure means nothing without its policy.
    text = run("odds", "1d20", "--target", "13", "--reroll", "1").output
    assert "success  3/5 (60.00%)" in text
    assert "assumes rerolls as the default policy spends them (R11)" in text
    payload = json.loads(run("odds", "1d20", "--target", "13", "--reroll", "1", "--json").output)
    assert "lowest die, while it is below its die's average" in payload["reroll_policy"]
    plain = json.loads(run("odds", "1d20", "--target", "13", "--json").output)
    assert plain["reroll_policy"] is None
    assert "assumes" not in run("odds", "1d20", "--target", "13").output


def test_r11_odds_with_rerolls_also_give_the_best_chance(run: Callable[..., Result]) -> None:
    # Rerolling any failing 1d20 (1-12) against 13 wins 12/20 of the 8/20 misses: 64%.
    text = run("odds", "1d20", "--target", "13", "--reroll", "1").output
    assert "success  3/5 (60.00%)" in text
    assert "rerolling as well as possible (any die, whenever it helps): 16/25 (64.00%)" in text
    payload = json.loads(run("odds", "1d20", "--target", "13", "--reroll", "1", "--json").output)
    assert payload["best_success"] == {"fraction": "16/25", "float": 0.64}
    plain = json.loads(run("odds", "1d20", "--target", "13", "--json").output)
    assert plain["best_success"] is None


def test_r11_best_reroll_odds_say_why_a_falling_total_has_none(run: Callable[..., Result]) -> None:
    text = run("odds", "1d20-1d4", "--target", "13", "--reroll", "1").output
    assert "success  " in text
    assert "no exact figure for rerolling as well as possible" in text
    assert "dice are subtracted" in text

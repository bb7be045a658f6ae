"""`diceledger demo` plays a whole session on a throw-away store, the same for one seed."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from click.testing import CliRunner

from diceledger.cli.main import cli


def play(folder: Path, seed: int) -> str:
    result = CliRunner().invoke(cli, ["demo", "--seed", str(seed), "--dir", str(folder)])
    assert result.exit_code == 0, result.output
    return result.output


def roll_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(("#", "  round"))]


def test_demo_shows_every_part_of_a_session_and_verifies(tmp_path: Path) -> None:
    output = play(tmp_path / "one", seed=1)
    # Lines naming the (here long) temporary folder are the only ones allowed past 80.
    widths = [len(line) for line in output.splitlines() if str(tmp_path) not in line]
    assert max(widths) <= 80
    output = output.replace(" \\\n    ", " ")  # join the shown commands' continued lines
    for expected in (
        "--adv 1:flank --adv 1:high-ground --dis 1:mud",
        "--dc 4:trap",
        "save $S",
        "--median --adv 1:bless",
        ": tie",
        "1d8 (8!8!6!4!4!2) + 2 = 34",
        "reroll $S 7 --die",
        "the GM rolled blind",
        "resolution (R14):",
        "roll 2 voided",
        "--replaces 2",
        "awaiting cara's rerolls: 1 left",
        "cara wins after 2 rounds",
        "seed reveal $S",
        "verified: the chain, versions, rules, nonces, commitments and every outcome hold",
        "== Explore further",
    ):
        assert expected in output
    assert "#8: the GM rolled blind" in output  # a player sees neither label nor NPC
    with (tmp_path / "one" / "sunken-crypt-stats.csv").open(newline="") as handle:
        players = {row["player"] for row in csv.DictReader(handle)}
    assert {"ann", "bram", "cara"} <= players


def test_the_same_seed_plays_the_same_dice_and_another_seed_does_not(tmp_path: Path) -> None:
    first = roll_lines(play(tmp_path / "a", seed=5))
    assert first == roll_lines(play(tmp_path / "b", seed=5))
    assert first != roll_lines(play(tmp_path / "c", seed=6))


def test_demo_refuses_a_folder_that_already_has_a_demo_store(tmp_path: Path) -> None:
    play(tmp_path, seed=1)
    result = CliRunner().invoke(cli, ["demo", "--dir", str(tmp_path)])
    assert result.exit_code == 1 and "exists already" in result.output


def test_the_reroll_scene_rerolls_the_die_a_player_would_pick(tmp_path: Path) -> None:
    output = play(tmp_path, seed=1)
    scene = output.split("== A damage reroll")[1].split("\n== ")[0]
    before, after = [line for line in scene.splitlines() if line.startswith("#")]
    dice = re.search(r"2d6 \(([^)]*)\)", before)
    assert dice is not None, before
    chains = [chain.strip() for chain in dice.group(1).split(",")]
    faces = [int(chain.split("!")[0]) for chain in chains]
    struck = re.search(r"~~(\d+)~~", after)
    assert struck is not None, after
    chosen = int(struck.group(1))
    # The lowest die, below a d6's average, and not one whose explosion the reroll would lose.
    assert chosen == min(faces) and chosen < 3.5
    assert "!" not in chains[faces.index(chosen)]

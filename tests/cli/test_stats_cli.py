"""``diceledger stats`` as a user runs it: table, tidy CSV, JSON, filters and viewers."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest

from diceledger.domain.projections.tidy import COLUMNS
from tests.cli.conftest import Ledger


@pytest.fixture
def played(ledger: Ledger, table: str) -> str:
    """ann: three 1d20 checks against 11 (p = 1/2 each), two won; a blind one for bob."""
    for face in ("15", "3", "12"):
        ledger.ok("ann", "check", table, "1d20", "--target", "11", "--faces", face)
    ledger.ok("bob", "roll", table, "6d6n", "--kind", "damage", "--faces", "1,1,2,3,4,6")
    ledger.ok(
        "gm", "check", table, "1d20", "--target", "11", "--blind", "--for", "bob", "--faces", "17"
    )
    return table


def figures(text: str) -> dict[tuple[str, str, str, str, str, str], str]:
    rows = list(csv.DictReader(io.StringIO(text)))
    return {tuple(row[c] for c in COLUMNS[:-1]): row["value"] for row in rows}  # type: ignore[misc]


def test_csv_is_tidy_with_the_documented_columns_and_hand_checked_numbers(
    ledger: Ledger, played: str
) -> None:
    out = ledger.ok("ann", "stats", "--session", played, "--format", "csv")
    assert out.splitlines()[0] == ",".join(COLUMNS)
    got = figures(out)
    ann = (played, "ann")
    assert got[(*ann, "outcomes", "", "", "made")] == "3"
    assert got[(*ann, "luck", "", "", "expected")] == "1.5"
    assert float(got[(*ann, "luck", "", "", "z_score")]) == pytest.approx(
        0.5 / math.sqrt(0.75), abs=1e-6
    )
    bob = (played, "bob")
    assert got[(*bob, "die", "d6", "", "chi_square")] == "2.0"
    assert float(got[(*bob, "die", "d6", "", "p_value")]) == pytest.approx(0.849145, abs=1e-6)
    assert got[(*bob, "face", "d6", "1", "count")] == "2"
    assert got[(*bob, "die", "d6", "", "too_few")] == "1"


def test_a_player_does_not_see_an_unrevealed_blind_roll_and_the_gm_does(
    ledger: Ledger, played: str
) -> None:
    as_player = figures(ledger.ok("ann", "stats", "--format", "csv", "--player", "bob"))
    as_gm = figures(ledger.ok("gm", "stats", "--format", "csv", "--player", "bob"))
    key = (played, "bob", "outcomes", "", "", "made")
    assert (as_player[key], as_gm[key]) == ("0", "1")
    assert as_player[(played, "bob", "excluded", "", "", "hidden")] == "1"
    assert ("ALL", "bob", "outcomes", "", "", "made") in as_player
    ledger.ok("gm", "reveal", played, "5")
    assert figures(ledger.ok("ann", "stats", "--format", "csv", "--player", "bob"))[key] == "1"


def test_a_voided_roll_is_left_out_and_the_table_says_so(ledger: Ledger, played: str) -> None:
    ledger.ok("bob", "dispute", "open", played, "2", "--reason", "fell off the table")
    ledger.ok("gm", "dispute", "resolve", played, "2", "--void")
    out = ledger.ok("bob", "stats", "--session", played, "--player", "ann")
    assert "checks won 2/2 (100.0%), expected 1.00" in out
    assert "left out: 1 voided, 0 hidden" in out
    assert "d20: 2 dice" in out and "too few rolls" in out


def test_json_and_an_output_file(ledger: Ledger, played: str, tmp_path: Path) -> None:
    document = ledger.data("gm", "stats", "--session", played)
    assert document["viewer"] == "gm"
    reports = {r["player"]: r for r in document["reports"]}
    assert reports["ann"]["outcomes"]["won"] == 2
    assert reports["bob"]["dice"]["d6"]["faces"]["1"] == 2
    target = tmp_path / "stats.csv"
    result = ledger.run("gm", "stats", "--format", "csv", "-o", str(target))
    assert result.exit_code == 0 and result.stdout == ""
    assert target.read_text().splitlines()[0] == ",".join(COLUMNS)


def test_stats_answer_from_the_projection_which_they_bring_up_to_date(
    ledger: Ledger, played: str
) -> None:
    status = ledger.data("gm", "projections", "status")[0]
    assert status["name"] == "statistics" and status["behind"] > 0
    ledger.ok("gm", "stats")
    status = ledger.data("gm", "projections", "status")[0]
    assert status["behind"] == 0 and status["checkpoint"] == ledger.store.head_position()
    rebuilt = ledger.data("gm", "projections", "rebuild")
    assert [p["name"] for p in rebuilt] == ["statistics", "sessions"]
    assert all(p["folded"] == p["checkpoint"] == ledger.store.head_position() for p in rebuilt)
    assert ledger.data("gm", "stats", "--session", played)["reports"][0]["outcomes"]["made"] == 3


def test_an_unknown_session_is_a_one_line_error(ledger: Ledger, played: str) -> None:
    assert "unknown session 'nope'" in ledger.refused("ann", "stats", "--session", "nope")

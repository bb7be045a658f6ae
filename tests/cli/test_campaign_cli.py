"""``diceledger campaign`` and ``stats --campaign`` as a user runs them, dice typed in.

pandas is not installed in this project's environment, so the CSV is read with the
standard library's csv module, the way pandas.read_csv would see it: one header, the
documented columns, one value per cell.
"""

from __future__ import annotations

import csv
import io

import pytest

from diceledger.domain.projections.tidy import CAMPAIGN_COLUMNS
from tests.cli.conftest import Ledger


@pytest.fixture
def campaign(ledger: Ledger) -> tuple[str, str, str]:
    """Two evenings of one campaign: ann wins one check of two, then one of one."""
    campaign_id = ledger.ok("gm", "campaign", "start", "Ashen Crown").strip()
    sessions = []
    for title, faces in (("Evening one", ("15", "2")), ("Evening two", ("19",))):
        start = ("session", "start", title, "--campaign", campaign_id)
        sid: str = ledger.data("gm", *start)["session_id"]
        ledger.ok("ann", "session", "join", sid)
        for face in faces:
            ledger.ok("ann", "check", sid, "1d20+1", "--target", "11", "--faces", face)
        sessions.append(sid)
    return campaign_id, sessions[0], sessions[1]


def test_campaign_start_prints_only_the_id_and_show_lists_its_sessions(
    ledger: Ledger, campaign: tuple[str, str, str]
) -> None:
    campaign_id, one, two = campaign
    assert campaign_id.startswith("c-ashen-crown-")
    shown = ledger.data("ann", "campaign", "show", campaign_id)
    assert shown["title"] == "Ashen Crown" and shown["started_by"] == "gm"
    assert [(s["session_id"], s["role"]) for s in shown["sessions"]] == [
        (one, "player"),
        (two, "player"),
    ]
    text = ledger.ok("ann", "campaign", "show", campaign_id)
    assert f"1. {one}  Evening one  (player)" in text
    listed = ledger.ok("gm", "campaign", "list")
    assert f"{campaign_id}  Ashen Crown  started by gm, 2 sessions" in listed


def test_stats_campaign_csv_reads_as_a_table_and_sums_the_evenings(
    ledger: Ledger, campaign: tuple[str, str, str]
) -> None:
    campaign_id, one, two = campaign
    out = ledger.ok("ann", "stats", "--campaign", campaign_id, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert tuple(rows[0]) == CAMPAIGN_COLUMNS  # a session's columns, and the character
    made = {
        r["session_id"]: int(r["value"])
        for r in rows
        if (r["player"], r["group"], r["metric"]) == ("ann", "outcomes", "made")
    }
    assert made == {one: 2, two: 1, "ALL": 3}
    expected = {
        r["session_id"]: float(r["value"])
        for r in rows
        if (r["player"], r["group"], r["metric"]) == ("ann", "luck", "expected")
    }
    assert expected["ALL"] == pytest.approx(expected[one] + expected[two]) == 1.65


def test_stats_campaign_json_names_the_campaign_and_orders_the_evenings(
    ledger: Ledger, campaign: tuple[str, str, str]
) -> None:
    campaign_id, one, two = campaign
    document = ledger.data("ann", "stats", "--campaign", campaign_id)
    assert document["campaign_id"] == campaign_id and document["viewer"] == "ann"
    luck = [(r["session_id"], r["luck"]["observed"]) for r in document["reports"]]
    assert luck == [(one, 1), (two, 1), ("ALL", 2)]


def test_stats_campaign_table_calls_the_totals_the_whole_campaign(
    ledger: Ledger, campaign: tuple[str, str, str]
) -> None:
    text = ledger.ok("ann", "stats", "--campaign", campaign[0])
    assert "ann in the whole campaign" in text
    assert "checks won 2/3" in text


def test_a_player_cannot_start_a_session_in_the_campaign(
    ledger: Ledger, campaign: tuple[str, str, str]
) -> None:
    message = ledger.refused("ann", "session", "start", "Mine", "--campaign", campaign[0])
    assert "only the campaign's starter or a GM" in message
    assert len(ledger.data("gm", "campaign", "show", campaign[0])["sessions"]) == 2


def test_an_unknown_campaign_is_one_clear_line(ledger: Ledger) -> None:
    assert ledger.refused("gm", "campaign", "show", "c-nowhere") == "no campaign 'c-nowhere'"
    message = ledger.refused("gm", "session", "start", "Lost", "--campaign", "c-nowhere")
    assert message == "no campaign 'c-nowhere'"
    assert ledger.refused("gm", "stats", "--campaign", "c-nowhere") == "no campaign 'c-nowhere'"


def test_session_and_campaign_together_are_a_usage_error(
    ledger: Ledger, campaign: tuple[str, str, str]
) -> None:
    err = ledger.misused("ann", "stats", "--campaign", campaign[0], "--session", campaign[1])
    assert "--session and --campaign cannot be used together" in err


def test_an_empty_campaign_title_is_refused(ledger: Ledger) -> None:
    assert "title" in ledger.refused("gm", "campaign", "start", "  ")
    assert ledger.ok("gm", "campaign", "list").startswith("no campaigns yet")


def test_r4_a_character_is_carried_to_the_next_evening_and_has_its_own_campaign_luck(
    ledger: Ledger,
) -> None:
    campaign_id = ledger.ok("gm", "campaign", "start", "Ashen Crown").strip()
    start = ("session", "start", "Evening one", "--campaign", campaign_id)
    one: str = ledger.data("gm", *start)["session_id"]
    ledger.ok("ann", "session", "join", one)
    ledger.ok("ann", "character", "create", one, "Thalia")
    ledger.ok("ann", "character", "set", one, "Thalia", "STR=3")
    # 15+3 vs 11: won, p = P(d20 >= 8) = 13/20.
    ledger.ok("ann", "check", one, "1d20+@STR", "--target", "11", "--faces", "15")
    ledger.ok("gm", "character", "set", one, "Thalia", "STR=4")
    ledger.ok("gm", "session", "end", one)
    start = ("session", "start", "Evening two", "--campaign", campaign_id)
    two: str = ledger.data("gm", *start)["session_id"]
    ledger.ok("ann", "session", "join", two)
    # 2+4 vs 11, with the STR carried: lost, p = P(d20 >= 7) = 14/20.
    ledger.ok("ann", "check", two, "1d20+@STR", "--target", "11", "--faces", "2")
    # The second evening verifies alone, its rules (the carried sheets with them) decided again.
    assert "verified: the chain, versions, rules" in ledger.ok("gm", "verify", two)
    document = ledger.data("ann", "stats", "--campaign", campaign_id)
    luck = [
        (r["session_id"], r["outcomes"]["won"], r["luck"]["expected"])
        for r in document["characters"]
        if r["character"] == "Thalia"
    ]
    assert luck == [(one, 1, 0.65), (two, 0, 0.7), ("ALL", 1, 1.35)]
    out = ledger.ok("ann", "stats", "--campaign", campaign_id, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    expected = {
        r["session_id"]: float(r["value"])
        for r in rows
        if (r["player"], r["character"], r["group"], r["metric"])
        == ("", "Thalia", "luck", "expected")
    }
    assert expected == {one: 0.65, two: 0.7, "ALL": 1.35}
    text = ledger.ok("ann", "stats", "--campaign", campaign_id)
    assert "per character:\ncharacter Thalia in " + one in text

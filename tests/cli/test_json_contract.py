"""The ``--json`` answers carry the fields docs/cli.md promises, with the promised values."""

from __future__ import annotations

from typing import Any

from tests.cli.conftest import Ledger

ROLL_FIELDS = {"session_id", "roll_id", "status", "total", "target", "success", "margin", "dice"}
DIE_FIELDS = {"index", "sides", "face", "counted", "reason", "source"}
STATUSES = {"awaiting_rerolls", "resolved"}
REASONS = {"initial", "explosion", "reroll"}


def assert_roll_shape(roll: dict[str, Any], session_id: str) -> None:
    assert ROLL_FIELDS <= set(roll), ROLL_FIELDS - set(roll)
    assert roll["session_id"] == session_id
    assert roll["status"] in STATUSES
    assert roll["dice"], "every roll has dice"
    for die in roll["dice"]:
        assert DIE_FIELDS <= set(die), DIE_FIELDS - set(die)
        assert die["reason"] in REASONS
        assert die["source"] in {"seeded", "manual"}
        assert 1 <= die["face"] <= die["sides"]


def test_every_roll_command_answers_with_the_documented_fields(ledger: Ledger, table: str) -> None:
    answers = [
        ledger.data("ann", "roll", table, "2d6+1", "--kind", "damage"),
        ledger.data("ann", "check", table, "1d20+2", "--target", "12", "--adv", "1"),
        ledger.data("bob", "save", table, "1d20", "--dc", "2", "--against", "poison"),
        ledger.data("bob", "roll", table, "1d8", "--reroll", "1", "--faces", "1"),
        ledger.data("bob", "reroll", table, "4", "--die", "0"),
        ledger.data("ann", "roll", table, "1d8", "--reroll", "1", "--faces", "2"),
        ledger.data("ann", "accept", table, "5"),
        ledger.data("gm", "roll", table, "1d4", "--blind"),
        ledger.data("gm", "reveal", table, "6"),
        ledger.data("ann", "opposed", table, "1d20", "--vs", "bob", "1d20"),
    ]
    for answer in answers:
        assert_roll_shape(answer, table)
    assert [a["roll_id"] for a in answers] == [1, 2, 3, 4, 4, 5, 5, 6, 6, 7]


def test_a_seeded_die_says_where_its_face_came_from(ledger: Ledger, table: str) -> None:
    (die,) = ledger.data("ann", "roll", table, "1d4n")["dice"]
    assert die["source"] == "seeded"
    assert (die["epoch"], die["nonce"], die["block"], die["word"]) == (1, 1, 0, 0)
    (typed,) = ledger.data("ann", "roll", table, "1d4n", "--faces", "2")["dice"]
    assert (typed["source"], typed["epoch"], typed["block"]) == ("manual", None, None)


def test_a_waiting_roll_has_a_status_but_no_outcome_yet(ledger: Ledger, table: str) -> None:
    roll = ledger.data(
        "ann", "check", table, "1d20", "--target", "5", "--reroll", "1", "--faces", "9"
    )
    assert (roll["status"], roll["rerolls_left"], roll["total"]) == ("awaiting_rerolls", 1, 9)
    assert (roll["success"], roll["margin"]) == (None, None)


def test_an_opposed_check_names_its_contestants_and_winner(ledger: Ledger, table: str) -> None:
    roll = ledger.data("gm", "opposed", table, "1d20+1", "--vs", "wolf", "1d20", "--faces", "3,9")
    assert [c["name"] for c in roll["contestants"]] == ["gm", "wolf"]
    assert roll["winner"] == "wolf" and roll["success"] is False and roll["margin"] == -5
    assert {d["side"] for d in roll["dice"]} == {0, 1}


def test_a_hidden_roll_gives_players_no_dice_or_total(ledger: Ledger, table: str) -> None:
    ledger.ok("gm", "check", table, "1d20", "--target", "10", "--blind")
    (seen,) = ledger.data("ann", "session", "show", table)["rolls"]
    assert seen["status"] == "hidden"
    assert not {"dice", "total", "success", "margin", "line"} & set(seen)

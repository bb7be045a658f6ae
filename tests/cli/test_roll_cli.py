"""``diceledger roll | check | save`` with typed-in dice: hand-checked totals by rule id."""

from __future__ import annotations

from typing import Any

from tests.cli.conftest import Ledger


def faces_of(roll: dict[str, Any]) -> list[tuple[int, int, bool, str]]:
    """Return each die as (sides, face, counted, reason)."""
    return [(d["sides"], d["face"], d["counted"], d["reason"]) for d in roll["dice"]]


def test_r12_a_d6_showing_6_6_4_2_explodes_down_the_ladder_to_18(
    ledger: Ledger, table: str
) -> None:
    roll = ledger.data("ann", "roll", table, "1d6", "--faces", "6,6,4,2")
    assert (roll["status"], roll["total"]) == ("resolved", 18)
    assert faces_of(roll) == [
        (6, 6, True, "initial"),
        (6, 6, True, "explosion"),
        (4, 4, True, "explosion"),
        (4, 2, True, "explosion"),
    ]
    assert {d["source"] for d in roll["dice"]} == {"manual"}
    out = ledger.ok("ann", "roll", table, "1d6", "--faces", "6,6,4,2")
    assert out == "#2 ann effect: 1d6 (6!6!4!2) = 18\n"


def test_r12_every_added_die_is_its_own_event(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "roll", table, "1d6", "--faces", "6,6,4,2")
    assert ledger.event_types(table)[-6:] == [
        "RollRequested",
        "DiceRolled",
        "DieExploded",
        "DieExploded",
        "DieExploded",
        "RollResolved",
    ]


def test_r13_no_explode_keeps_a_maximum_as_it_is(ledger: Ledger, table: str) -> None:
    assert ledger.data("ann", "roll", table, "1d6", "--no-explode", "--faces", "6")["total"] == 6
    assert ledger.data("ann", "roll", table, "1d6n+1d4", "--faces", "6,2")["total"] == 8


def test_r2_damage_roll_adds_dice_and_modifiers(ledger: Ledger, table: str) -> None:
    roll = ledger.data(
        "bob", "roll", table, "2d6+3[STR]", "--kind", "damage", "--faces", "2,5", "--label", "axe"
    )
    assert (roll["kind"], roll["total"], roll["label"]) == ("damage", 10, "axe")
    assert roll["target"] is None and roll["success"] is None and roll["margin"] is None


def test_r10_division_rounds_down(ledger: Ledger, table: str) -> None:
    assert ledger.data("ann", "roll", table, "(2d6+3)/2", "--faces", "1,3")["total"] == 3


def test_r3_check_meeting_the_target_succeeds_with_margin_zero(ledger: Ledger, table: str) -> None:
    check = ledger.data("ann", "check", table, "1d20+5", "--target", "15", "--faces", "10")
    assert (check["total"], check["target"], check["success"], check["margin"]) == (
        15,
        15,
        True,
        0,
    )
    out = ledger.ok("ann", "check", table, "1d20+5", "--target", "15", "--faces", "9")
    assert out == "#2 ann check: 1d20 (9) + 5 = 14 vs 15: failure\n"


def test_r4_dc_target_is_ten_plus_the_mod_and_both_are_recorded(ledger: Ledger, table: str) -> None:
    check = ledger.data("ann", "check", table, "1d20", "--dc", "3:WIS", "--faces", "13")
    assert (check["target"], check["dc_modifier"], check["success"]) == (13, 3, True)
    low = ledger.data("ann", "check", table, "1d20", "--dc", "-2", "--faces", "7")
    assert (low["target"], low["success"], low["margin"]) == (8, False, -1)


def test_r5_save_records_its_origin(ledger: Ledger, table: str) -> None:
    save = ledger.data(
        "bob", "save", table, "1d20+1", "--dc", "3", "--against", "banshee wail", "--faces", "12"
    )
    assert (save["kind"], save["against"], save["total"], save["success"]) == (
        "save",
        "banshee wail",
        13,
        True,
    )


def test_r5_save_without_an_origin_is_a_usage_error(ledger: Ledger, table: str) -> None:
    assert "--against" in ledger.misused("bob", "save", table, "1d20", "--target", "10")


def test_r7_advantage_sources_add_up_and_the_highest_counts(ledger: Ledger, table: str) -> None:
    args = ("check", table, "1d20+5", "--target", "15", "--adv", "1:flank", "--adv", "1:bless")
    check = ledger.data("ann", *args, "--dis", "1:dark", "--faces", "4,17")
    assert faces_of(check) == [(20, 4, False, "initial"), (20, 17, True, "initial")]
    assert check["total"] == 22
    out = ledger.ok("ann", *args, "--dis", "1:dark", "--faces", "4,17")
    assert "1d20 (~~4~~, **17**) + 5" in out


def test_r7_disadvantage_keeps_the_lowest(ledger: Ledger, table: str) -> None:
    check = ledger.data(
        "ann", "check", table, "1d20", "--target", "10", "--dis", "2", "--faces", "15,8,19"
    )
    assert check["total"] == 8 and check["success"] is False
    assert [d["counted"] for d in check["dice"]] == [False, True, False]


def test_r7_advantage_is_not_an_option_of_a_plain_roll(ledger: Ledger, table: str) -> None:
    assert "--adv" in ledger.misused("ann", "roll", table, "1d6", "--adv", "1")


def test_r7_only_the_counted_check_die_explodes(ledger: Ledger, table: str) -> None:
    # 20 is dropped (disadvantage), so it does not explode; 5 counts.
    check = ledger.data(
        "ann", "check", table, "1d20", "--target", "10", "--dis", "1", "--faces", "20,5"
    )
    assert check["total"] == 5
    assert [d["reason"] for d in check["dice"]] == ["initial", "initial"]


def test_r8_median_check_counts_the_middle_die(ledger: Ledger, table: str) -> None:
    check = ledger.data(
        "ann", "check", table, "1d20", "--target", "10", "--median", "--faces", "3,15,9"
    )
    assert check["total"] == 9
    assert [d["counted"] for d in check["dice"]] == [False, False, True]


def test_r9_eased_and_hindered_add_up_after_the_die(ledger: Ledger, table: str) -> None:
    check = ledger.data(
        "ann",
        "check",
        table,
        "1d20+1",
        "--target",
        "14",
        "--eased",
        "2:bless",
        "--eased",
        "1",
        "--hindered",
        "1:mud",
        "--faces",
        "11",
    )
    assert (check["total"], check["margin"]) == (14, 0)
    assert "eased" in check["line"] and "hindered" in check["line"]


def test_check_with_both_target_and_dc_or_neither_is_refused(ledger: Ledger, table: str) -> None:
    both = ledger.refused("ann", "check", table, "1d20", "--target", "10", "--dc", "2")
    assert both == "give a target or a dc, not both"  # the roll form's words, on every face
    assert ledger.refused("ann", "check", table, "1d20") == "a check needs a target or a DC"


def test_malformed_option_values_are_usage_errors(ledger: Ledger, table: str) -> None:
    assert "whole number" in ledger.misused(
        "ann", "check", table, "1d20", "--target", "9", "--adv", "x"
    )
    assert "negative" in ledger.misused("ann", "roll", table, "1d6", "--eased", "-1")
    assert "faces" in ledger.misused("ann", "roll", table, "1d6", "--faces", "6,x")
    assert "damage" in ledger.misused("ann", "roll", table, "1d6", "--kind", "fire")


def test_r1_bad_notation_is_one_line_naming_the_allowed_dice(ledger: Ledger, table: str) -> None:
    message = ledger.refused("ann", "roll", table, "1d7")
    assert "d4, d6, d8, d10, d12, d20" in message


def test_r2_bad_notation_names_the_column(ledger: Ledger, table: str) -> None:
    assert ledger.refused("ann", "roll", table, "1d20+3x") == "unexpected 'x' at column 7"


def test_r3_a_check_needs_a_single_check_die(ledger: Ledger, table: str) -> None:
    assert "check die" in ledger.refused("ann", "check", table, "2d6", "--target", "7")


def test_too_few_faces_name_the_die_expected(ledger: Ledger, table: str) -> None:
    message = ledger.refused("ann", "roll", table, "1d6+1d8", "--faces", "6")
    assert message == "not enough faces: die 2 (a d8) needs one more face"


def test_r12_faces_go_initial_dice_first_then_explosions_as_needed(
    ledger: Ledger, table: str
) -> None:
    # 1d6 shows 6, 1d8 shows 3, and only then does the d6's explosion draw (a d6).
    message = ledger.refused("ann", "roll", table, "1d6+1d8", "--faces", "6,3")
    assert message == "not enough faces: die 3 (a d6) needs one more face"
    roll = ledger.data("ann", "roll", table, "1d6+1d8", "--faces", "6,3,2")
    assert faces_of(roll) == [
        (6, 6, True, "initial"),
        (8, 3, True, "initial"),
        (6, 2, True, "explosion"),
    ]
    assert roll["total"] == 11


def test_too_many_faces_are_refused(ledger: Ledger, table: str) -> None:
    message = ledger.refused("ann", "roll", table, "1d6", "--faces", "3,4")
    assert message == "too many faces: the roll used 1, 1 left over"


def test_a_face_off_the_die_is_refused(ledger: Ledger, table: str) -> None:
    message = ledger.refused("ann", "check", table, "1d20", "--target", "5", "--faces", "21")
    assert message == "face 21 for die 1 is not on a d20"


def test_gm_may_forbid_typed_in_dice(ledger: Ledger) -> None:
    session_id = ledger.data("gm", "session", "start", "Strict", "--forbid-manual")["session_id"]
    ledger.ok("ann", "session", "join", session_id)
    assert ledger.data("ann", "session", "show", session_id)["manual_dice_allowed"] is False
    message = ledger.refused("ann", "roll", session_id, "1d6", "--faces", "4")
    assert message == "the GM has forbidden typed-in dice in this session"
    assert ledger.data("ann", "roll", session_id, "1d6")["dice"][0]["source"] == "seeded"


def test_outsider_cannot_roll(ledger: Ledger, table: str) -> None:
    assert ledger.refused("eve", "roll", table, "1d6").startswith("eve is not in session")


def test_player_cannot_roll_for_someone_else(ledger: Ledger, table: str) -> None:
    message = ledger.refused("ann", "roll", table, "1d6", "--for", "bob")
    assert message == "only a GM may roll for someone else or an NPC"


def test_gm_rolls_for_an_npc(ledger: Ledger, table: str) -> None:
    roll = ledger.data("gm", "check", table, "1d20+2", "--target", "12", "--for", "orc")
    assert (roll["roller"], roll["for"]) == ("gm", "orc")
    assert "#1 orc check" in ledger.ok("ann", "session", "show", table)


def test_roll_ids_count_up_per_session(ledger: Ledger, table: str) -> None:
    other = ledger.data("gm", "session", "start", "Other")["session_id"]
    ids = [ledger.data("ann", "roll", table, "1d4")["roll_id"] for _ in range(3)]
    assert ids == [1, 2, 3]
    assert ledger.data("gm", "roll", other, "1d4")["roll_id"] == 1


def test_a_label_longer_than_80_characters_is_refused(ledger: Ledger, table: str) -> None:
    assert "80" in ledger.refused("ann", "roll", table, "1d6", "--label", "x" * 81)


def test_r8_median_with_advantage_counts_the_second_highest(ledger: Ledger, table: str) -> None:
    check = ledger.data(
        "ann", "check", table, "1d20", "--target", "10", "--median", "--adv", "1",
        "--faces", "3,15,9,12",
    )  # fmt: skip
    assert check["total"] == 12
    assert [d["counted"] for d in check["dice"]] == [False, False, False, True]


def test_a_dc_that_is_not_a_number_is_a_usage_error(ledger: Ledger, table: str) -> None:
    assert "whole number" in ledger.misused("ann", "check", table, "1d20", "--dc", "WIS")

"""``diceledger character`` and rolls that read the sheet, from the command line (issue 29)."""

from __future__ import annotations

from tests.cli.conftest import Ledger


def sheets(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "character", "create", table, "Thalia")
    ledger.ok("ann", "character", "set", table, "Thalia", "STR=3:Strength")
    ledger.ok("ann", "character", "set", table, "Thalia", "Athletics=2")
    ledger.ok("gm", "character", "create", table, "Goblin", "--npc")
    ledger.ok("gm", "character", "set", table, "Goblin", "WIS=-1")
    ledger.ok("bob", "character", "create", table, "Brak")
    ledger.ok("bob", "character", "set", table, "Brak", "STR=1")


def test_characters_are_created_set_listed_and_shown_as_text_and_json(
    ledger: Ledger, table: str
) -> None:
    assert ledger.ok("ann", "character", "create", table, "Thalia") == (
        "created Thalia, ann's character\n"
    )
    assert ledger.ok("ann", "character", "set", table, "Thalia", "STR=3:Strength") == (
        "Thalia STR set to +3\n"
    )
    ledger.ok("gm", "character", "create", table, "Goblin", "--npc")
    ledger.ok("gm", "character", "set", table, "Goblin", "WIS=-1")
    assert ledger.ok("bob", "character", "list", table).splitlines() == [
        "2 characters; sheets kept by their players and the GMs",
        "Thalia (ann): STR +3",
        "Goblin (NPC): WIS -1",
    ]
    shown = ledger.data("bob", "character", "show", table, "Thalia")
    assert shown["owner"] == "ann" and shown["npc"] is False
    (strength,) = shown["attributes"]
    assert (strength["name"], strength["value"], strength["label"]) == ("STR", 3, "Strength")
    listed = ledger.data("bob", "character", "list", table)
    assert [c["name"] for c in listed["characters"]] == ["Thalia", "Goblin"]
    assert listed["sheets"] == "player"


def test_bad_sheet_changes_are_one_line_errors_that_append_nothing(
    ledger: Ledger, table: str
) -> None:
    sheets(ledger, table)
    assert ledger.refused("bob", "character", "set", table, "Thalia", "STR=9") == (
        "Thalia is ann's character, not yours"
    )
    assert "only a GM may change the NPC Goblin" in ledger.refused(
        "ann", "character", "set", table, "Goblin", "WIS=5"
    )
    assert "no character 'Nobody'" in ledger.refused("ann", "character", "show", table, "Nobody")
    assert "-20 to +20" in ledger.refused("ann", "character", "set", table, "Thalia", "STR=50")
    ledger.ok("gm", "character", "sheets", table, "gm")
    assert "only a GM may change" in ledger.refused(
        "ann", "character", "set", table, "Thalia", "STR=4"
    )
    ledger.misused("ann", "character", "set", table, "Thalia", "STR")


def test_r4_r6_rolls_read_the_sheet_and_review_names_each_value_and_its_event(
    ledger: Ledger, table: str
) -> None:
    sheets(ledger, table)
    check = ledger.data(
        "ann", "check", table, "1d20+@STR+@Athletics", "--target", "12", "--faces", "10"
    )
    assert check["total"] == 15
    save = ledger.data(
        "bob", "save", table, "1d20+@STR", "--dc", "@WIS", "--against", "Goblin", "--faces", "8"
    )
    assert (save["target"], save["total"], save["success"]) == (9, 9, True)
    assert "each side's MODs are its own" in ledger.refused(
        "ann", "opposed", table, "1d20+@STR", "--vs", "bob", "1d20+5"
    )
    assert "no attribute or Quality 'CHA'" in ledger.refused(
        "ann", "check", table, "1d20+@CHA", "--target", "12"
    )
    review = ledger.data("gm", "dispute", "review", table, "2")
    assert [(v["use"], v["character"], v["recorded"], v["set_by"]) for v in review["sheet"]] == [
        ("roll", "Brak", 1, "bob"),
        ("dc", "Goblin", -1, "gm"),
    ]
    assert all(v["matches"] and v["set_event"] == "AttributeSet" for v in review["sheet"])
    text = ledger.ok("gm", "dispute", "review", table, "2")
    assert "DC from Goblin @WIS -1, set at version" in text


def test_a_saved_roll_is_rolled_by_name_from_the_command_line(ledger: Ledger, table: str) -> None:
    sheets(ledger, table)
    saved = ["character", "save-roll", table, "Thalia", "Greataxe", "1d12+@STR", "--kind", "damage"]
    assert ledger.ok("ann", *saved) == "Thalia keeps the roll 'Greataxe': damage 1d12+@STR\n"
    rolled = ledger.data("ann", "roll", table, "--saved", "Greataxe", "--faces", "5")
    assert (rolled["kind"], rolled["label"], rolled["total"]) == ("damage", "Greataxe", 8)
    shown = ledger.data("ann", "character", "show", table, "Thalia")
    assert [r["name"] for r in shown["saved_rolls"]] == ["Greataxe"]
    assert "no saved roll 'Axe'" in ledger.refused("ann", "roll", table, "--saved", "Axe")
    ledger.misused("ann", "roll", table)

"""Disputes from open to ruling, and verify from the command line (issue 7)."""

from __future__ import annotations

import json
from pathlib import Path

import sqlalchemy as sa

from diceledger.infra.ledger.signing import open_keyring
from tests.cli.conftest import Ledger


def test_a_dispute_goes_from_open_to_review_to_void_and_a_new_roll(
    ledger: Ledger, table: str
) -> None:
    ledger.ok("ann", "check", table, "1d20+2", "--target", "12", "--adv", "1", "--faces", "4,17")
    opened = ledger.data("bob", "dispute", "open", table, "1", "--reason", "fell off the table")
    assert opened.pop("checkpoint").startswith(f"{open_keyring().current().name}/{table}\n")
    assert opened == {"session_id": table, "roll_id": 1, "dispute": "open", "by": "bob"}
    review = ledger.data("gm", "dispute", "review", table, "1")
    assert [(d["face"], d["counted"], d["source"]) for d in review["dice"]] == [
        (4, False, "manual"),
        (17, True, "manual"),
    ]
    assert review["dice"][0]["verified"].startswith("manual")
    assert review["roll_verified"] is True
    assert review["session_verification"]["ok"] is True
    assert any(step.startswith("comparison: 19 vs 12: success") for step in review["steps"])
    assert [e["event_type"] for e in review["events"]] == [
        "RollRequested",
        "DiceRolled",
        "CheckResolved",
        "RollDisputed",
    ]
    ruled = ledger.ok("gm", "dispute", "resolve", table, "1", "--void", "--note", "cocked")
    assert ruled == "roll 1 voided; roll it again with `--replaces 1`\n"
    again = ledger.data("ann", "check", table, "1d20+2", "--target", "12", "--replaces", "1")
    assert again["roll_id"] == 2
    # The new roll's seeded d20 may explode, so its events are found, not counted back.
    types = ledger.event_types(table)
    ruling = types.index("DisputeResolved")
    assert types[ruling - 1 : ruling + 2] == ["RollDisputed", "DisputeResolved", "RollRequested"]


def test_only_a_gm_reviews_or_rules_and_only_open_disputes_are_ruled(
    ledger: Ledger, table: str
) -> None:
    ledger.ok("ann", "roll", table, "1d6", "--faces", "3")
    assert ledger.refused("gm", "dispute", "resolve", table, "1", "--uphold") == (
        "roll 1 has no open dispute"
    )
    ledger.ok("bob", "dispute", "open", table, "1", "--reason", "too low")
    assert ledger.refused("bob", "dispute", "review", table, "1") == "only a GM may review a roll"
    assert ledger.refused("ann", "dispute", "resolve", table, "1", "--void") == (
        "only a GM may resolve a dispute"
    )
    assert "give --uphold or --void" in ledger.misused("gm", "dispute", "resolve", table, "1")
    assert ledger.ok("gm", "dispute", "resolve", table, "1", "--uphold") == "roll 1 upheld\n"


def test_verify_passes_a_clean_session_and_names_dice_not_yet_verifiable(
    ledger: Ledger, table: str
) -> None:
    ledger.ok("ann", "check", table, "1d20n+2", "--target", "12")  # one die, never more
    report = ledger.data("ann", "verify", table)
    assert report["ok"] is True and report["not_yet_verifiable_dice"] == 1
    assert report["unrevealed_epochs"] == [1]
    ledger.ok("gm", "session", "end", table)
    report = ledger.data("ann", "verify", table)
    assert (report["ok"], report["dice_verified"], report["not_yet_verifiable_dice"]) == (
        True,
        1,
        0,
    )


def test_verify_fails_with_exit_1_naming_the_first_tampered_position(
    ledger: Ledger, table: str
) -> None:
    ledger.ok("ann", "roll", table, "2d6", "--faces", "3,4")
    position = ledger.events(table)[-1].position
    with sa.create_engine(ledger.url).begin() as connection:
        connection.exec_driver_sql("DROP TRIGGER events_reject_update")
        connection.exec_driver_sql(
            "UPDATE events SET data = replace(data, '\"total\": 7', '\"total\": 12') "
            f"WHERE position = {position}"
        )
    result = ledger.run("ann", "verify", table)
    assert result.exit_code == 1
    assert f"FAILED at position {position}" in result.stderr


def test_verify_file_checks_an_export_with_no_database(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ledger.ok("ann", "roll", table, "3d6")
    ledger.ok("gm", "session", "end", table)
    path = tmp_path / "session.jsonl"
    ledger.ok("gm", "export", table, "-o", str(path))
    result = ledger.run(
        "ann",
        "--db",
        "sqlite:////nonexistent/dir/x.sqlite",
        "verify",
        "--file",
        str(path),
        "--json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["dice_verified"] >= 3
    assert "give a SESSION or --file" in ledger.misused("ann", "verify", table, "--file", str(path))

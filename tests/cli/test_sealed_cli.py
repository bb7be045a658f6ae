"""A player's export of a session with a hidden blind roll: sealed lines that still verify."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import Result

from tests.cli.conftest import Ledger


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def verify(ledger: Ledger, path: Path) -> tuple[Result, dict[str, Any]]:
    """Run ``verify --file`` as a user reads it, and again with --json for its report."""
    shown = ledger.run("ann", "verify", "--file", str(path))
    report = json.loads(ledger.run("ann", "verify", "--file", str(path), "--json").stdout)
    return shown, report


def hidden_roll_between_two(ledger: Ledger, table: str) -> None:
    """Roll 1 is ann's, roll 2 the GM's blind one for her, roll 3 ann's again.

    The blind roll's die does not explode, so its seeded dice are always one event.
    """
    ledger.ok("ann", "check", table, "1d20+3", "--target", "12")
    ledger.ok("gm", "check", table, "1d20n", "--target", "11", "--blind", "--for", "ann")
    ledger.ok("ann", "roll", table, "2d6+1")


def test_a_player_verifies_a_session_while_a_blind_roll_is_hidden(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    hidden_roll_between_two(ledger, table)
    path = tmp_path / "ann.jsonl"
    ledger.export("ann", table, path)
    sealed = [line for line in lines_of(path) if "sealed" in line]
    # The blind roll's request, dice and resolution: each a link in the chain, no content.
    assert [line["roll_id"] for line in sealed] == [2, 2, 2]
    assert all(set(line) == {"position", "stream_id", "stream_version", "sealed", "roll_id",
                             "prev_hash", "hash"} for line in sealed)  # fmt: skip
    shown, report = verify(ledger, path)
    assert shown.exit_code == 0, shown.output
    assert "roll 2: sealed (a hidden blind roll), not yet checkable" in shown.stdout
    assert (report["ok"], report["sealed_rolls"], report["sealed_events"]) == (True, [2], 3)
    assert report["checkpoints"]["ok"] is True  # the signed tree holds the sealed hashes


def test_once_revealed_the_same_roll_verifies_in_full(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    hidden_roll_between_two(ledger, table)
    ledger.ok("gm", "reveal", table, "2")
    path = tmp_path / "ann.jsonl"
    ledger.export("ann", table, path)
    assert not [line for line in lines_of(path) if "sealed" in line]
    shown, report = verify(ledger, path)
    assert shown.exit_code == 0, shown.output
    assert "sealed" not in shown.stdout
    assert (report["ok"], report["sealed_rolls"], report["rolls"]) == (True, [], 3)


def test_a_sealed_line_whose_hash_was_altered_fails(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    hidden_roll_between_two(ledger, table)
    path = tmp_path / "ann.jsonl"
    ledger.export("ann", table, path)
    lines = lines_of(path)
    at = next(n for n, line in enumerate(lines) if "sealed" in line)
    lines[at]["hash"] = "0" * 64
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    shown, report = verify(ledger, path)
    assert shown.exit_code == 1
    assert report["first_failure"]["stream_version"] == lines[at + 1]["stream_version"]
    assert report["first_failure"]["reason"] == (
        "prev_hash does not match the previous event's hash"
    )


def test_a_hidden_roll_the_end_closes_stays_sealed_and_the_end_verifies(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    # The hidden die does not explode: whatever its seeded face, its dice are one event.
    ledger.ok("gm", "check", table, "1d20n", "--target", "11", "--blind", "--reroll", "1")
    ledger.ok("ann", "check", table, "1d20", "--target", "9", "--reroll", "1")
    ledger.ok("gm", "session", "end", table)
    path = tmp_path / "ann.jsonl"
    ledger.export("ann", table, path)
    shown, report = verify(ledger, path)
    assert shown.exit_code == 0, shown.output
    assert (report["ok"], report["sealed_rolls"]) == (True, [1])
    # The end accepted and resolved the hidden roll too: those events are sealed.
    assert report["sealed_events"] == 4


def test_a_sealed_export_cannot_be_imported(ledger: Ledger, table: str, tmp_path: Path) -> None:
    hidden_roll_between_two(ledger, table)
    path = tmp_path / "ann.jsonl"
    ledger.export("ann", table, path)
    error = ledger.refused("gm", "import", str(path))
    assert "a sealed event of hidden roll 2" in error


def test_a_visible_rolls_resolution_sealed_by_a_forger_fails(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    hidden_roll_between_two(ledger, table)
    path = tmp_path / "ann.jsonl"
    ledger.export("ann", table, path)
    lines = lines_of(path)
    # Roll 3 is ann's own, shown in full: sealing its resolution would hide its total.
    at = next(
        n
        for n, line in enumerate(lines)
        if line.get("event_type") == "RollResolved" and line["data"]["roll_id"] == 3
    )
    line = lines[at]
    lines[at] = {
        "position": line["position"],
        "stream_id": line["stream_id"],
        "stream_version": line["stream_version"],
        "sealed": True,
        "roll_id": 3,
        "prev_hash": line["prev_hash"],
        "hash": line["hash"],
    }
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    shown, report = verify(ledger, path)
    assert shown.exit_code == 1
    # The rules miss the resolution first; the sealed line itself is named too.
    reasons = {failure["stream_version"]: failure["reason"] for failure in report["failures"]}
    assert reasons[line["stream_version"]] == "a sealed event of roll 3, which is shown in full"


def test_the_end_tying_a_hidden_opposed_check_between_visible_ones_verifies(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    # Three checks wait with their sides tied; the end rolls each a fresh round in roll
    # order, the hidden one's under a nonce the player cannot see: the last one skips it.
    # The GM types in both sides' dice: the other side is an NPC's (R6).
    seen = ("1d4", "--vs", "orc", "1d4", "--reroll", "1", "--no-explode", "--faces", "3,3")
    ledger.ok("gm", "opposed", table, *seen)
    blind = ("1d4", "--vs", "orc", "1d4", "--blind", "--reroll", "1", "--no-explode")
    ledger.ok("gm", "opposed", table, *blind, "--faces", "2,2")
    ledger.ok("gm", "opposed", table, *seen)
    ledger.ok("gm", "session", "end", table)
    path = tmp_path / "ann.jsonl"
    ledger.export("ann", table, path)
    shown, report = verify(ledger, path)
    assert shown.exit_code == 0, shown.output
    assert (report["ok"], report["sealed_rolls"]) == (True, [2])

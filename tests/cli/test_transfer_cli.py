"""``diceledger export`` and ``import`` between two SQLite files, as a user runs them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from diceledger.cli.main import cli
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.exporting import read_export, write_export
from diceledger.infra.store.sql import SqlEventStore
from tests.cli.conftest import Ledger
from tests.infra.forging import rechain


def export_open(ledger: Ledger, actor: str, table: str, path: Path, *extra: str) -> str:
    """Export a session still open: it works, with a one-line warning that it stays here."""
    result = ledger.run(actor, "export", table, "-o", str(path), *extra)
    assert result.exit_code == 0, result.output
    assert result.stderr.count("\n") == 1 and "is still open" in result.stderr
    return result.stdout


def import_into(url: str, path: Path) -> tuple[int, str]:
    runner = CliRunner(env={"NO_COLOR": "1"})
    result = runner.invoke(cli, ["--db", url, "--as", "gm", "import", str(path)])
    return result.exit_code, result.output


def test_export_then_import_twice_appends_once(ledger: Ledger, table: str, tmp_path: Path) -> None:
    ledger.ok("ann", "check", table, "1d20+3", "--target", "12")
    path = tmp_path / "tomb.jsonl"
    out = json.loads(export_open(ledger, "gm", table, path, "--json"))
    count = len(ledger.events(table))
    assert out == {
        "session_id": table,
        "events": count,
        "file": str(path),
        "open": True,
        "proof": f"{path}.proof.json",
    }
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    assert import_into(other, path) == (
        0,
        f"imported {path}: {count} events, {count} appended, 0 already present\n",
    )
    code, output = import_into(other, path)
    assert (code, f"0 appended, {count} already present" in output) == (0, True)
    replayed = CliRunner().invoke(cli, ["--db", other, "--as", "ann", "replay", table])
    assert "#1 ann check 1d20+3 vs 12" in replayed.output


def test_a_tampered_file_is_refused_naming_the_line(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    path = tmp_path / "tomb.jsonl"
    export_open(ledger, "gm", table, path)
    lines = path.read_text().splitlines(keepends=True)
    record = json.loads(lines[3])
    record["data"]["name"] = "mallory"
    lines[3] = json.dumps(record) + "\n"
    path.write_text("".join(lines))
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    code, output = import_into(other, path)
    assert code == 1
    assert output == "Error: line 4: hash does not match the event's contents" + f" ({table} v4)\n"


def test_a_file_that_cannot_be_written_is_a_one_line_error(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-folder"
    assert ledger.refused("gm", "export", table, "-o", str(missing / "t.jsonl")) == (
        f"cannot use {missing / 't.jsonl'}: No such file or directory"
    )
    assert ledger.refused("gm", "stats", "-o", str(missing / "t.csv")) == (
        f"cannot use {missing / 't.csv'}: No such file or directory"
    )
    assert not missing.exists()


def test_a_forged_file_with_a_rebuilt_chain_is_refused_and_nothing_imported(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    ledger.ok("ann", "check", table, "1d20+3", "--target", "12", "--faces", "7")
    path = tmp_path / "tomb.jsonl"
    export_open(ledger, "gm", table, path)
    records = list(read_export(path))
    resolved = next(i for i, r in enumerate(records) if r.event_type == "CheckResolved")
    # A careful forger turns the failure into a success and rebuilds every hash after it.
    forged = replace(records[resolved], data={**records[resolved].data, "success": True})
    write_export(rechain([*records[:resolved], forged, *records[resolved + 1 :]]), path)
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    code, output = import_into(other, path)
    assert code == 1
    assert output.startswith(f"Error: session '{table}' does not verify at version {resolved + 1}")
    assert output.endswith("; nothing imported\n") and output.count("\n") == 1
    assert SqlEventStore(make_engine(other)).head_position() == 0

"""``diceledger db upgrade`` and ``db current``, run through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from diceledger.cli.main import cli
from diceledger.infra.store.database import head_revision


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_db_current_says_a_new_file_has_no_schema_yet(tmp_path: Path) -> None:
    code, output = run("--db", f"sqlite:///{tmp_path / 'x.sqlite'}", "db", "current")
    assert code == 0
    assert output.strip() == f"schema revision none (behind; the code needs {head_revision()})"


def test_db_upgrade_brings_the_schema_to_the_head(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    code, output = run("--db", url, "db", "upgrade")
    assert code == 0
    assert output.strip() == f"upgraded: schema revision {head_revision()} (up to date)"
    assert run("--db", url, "db", "current")[1].strip().endswith("(up to date)")


def test_db_current_as_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    monkeypatch.setenv("DICELEDGER_DB", url)
    run("db", "upgrade")
    code, output = run("--json", "db", "current")
    assert code == 0
    assert json.loads(output) == {
        "database": url,
        "revision": head_revision(),
        "head": head_revision(),
        "is_head": True,
        "status": "up to date",
    }


def test_an_unreachable_database_is_one_line_and_a_failing_exit() -> None:
    code, output = run("--db", "postgresql://postgres@127.0.0.1:1/x", "db", "current")
    assert code == 1
    assert output.startswith("Error: cannot use the database postgresql+psycopg://")
    assert output.count("\n") == 1
    assert "Traceback" not in output


def test_a_malformed_url_is_one_line_and_a_failing_exit() -> None:
    code, output = run("--db", "::nonsense::", "db", "upgrade")
    assert code == 1
    assert output.strip() == (
        "Error: not a usable database URL: Could not parse SQLAlchemy URL from given URL string"
    )

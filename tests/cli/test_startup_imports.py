"""A `check` run as its own process loads only what a check uses.

Every command is a new process, so whatever it imports it pays for on every roll (issue
17, docs/performance.md, "Start-up"). These tests hold the line without timing anything:
a real `diceledger` entry point runs in a fresh interpreter and reports which modules it
ended up with.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Ledger

# Run the console script's own entry point, then list every module the process loaded.
RUN_AND_LIST = """
import json, sys
from diceledger.cli.main import main
listing, sys.argv = sys.argv[1], ["diceledger", *sys.argv[2:]]
try:
    main()
except SystemExit as done:
    code = done.code
with open(listing, "w", encoding="utf-8") as out:
    json.dump({"exit": code, "modules": sorted(sys.modules)}, out)
"""

# Faces and machinery a check never uses: the HTTP face, schema migrations, the other
# store's driver, the odds engine, and the confusables table (only a join compares names).
NEVER_FOR_A_CHECK = (
    "diceledger.web",
    "fastapi",
    "starlette",
    "uvicorn",
    "jinja2",
    "alembic",
    "psycopg",
    "sqlalchemy.dialects.postgresql",
    "diceledger.domain.odds",
    "confusable_homoglyphs",
)


def loaded_by(url: str, listing: Path, *args: str) -> tuple[int, list[str], str]:
    """Run ``diceledger ARGS`` in a fresh interpreter; return its exit, modules and output."""
    env = {**os.environ, "DICELEDGER_DB": url, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST, str(listing), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stderr == "", done.stderr
    report = json.loads(listing.read_text(encoding="utf-8"))
    return report["exit"], report["modules"], done.stdout


def under(modules: list[str], packages: tuple[str, ...]) -> list[str]:
    """Return the modules that are one of ``packages`` or inside one."""
    return [m for m in modules if any(m == p or m.startswith(f"{p}.") for p in packages)]


def test_a_check_on_sqlite_loads_no_face_migration_odds_or_other_driver(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    code, modules, output = loaded_by(
        ledger.url,
        tmp_path / "modules.json",
        *("--as", "ann", "check", table, "1d20+5", "--target", "15", "--adv", "1"),
    )
    assert code == 0
    assert output.startswith("#1 ann check: 1d20 (")  # the roll was made and shown
    assert under(modules, NEVER_FOR_A_CHECK) == []
    assert "sqlalchemy.dialects.sqlite" in modules  # the store it did use


def test_help_loads_no_store(tmp_path: Path, sqlite_url: str) -> None:
    code, modules, output = loaded_by(sqlite_url, tmp_path / "modules.json", "--help")
    assert code == 0
    assert "check" in output
    assert under(modules, ("sqlalchemy", "cryptography", *NEVER_FOR_A_CHECK)) == []

"""The README's shell examples work as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def shell_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_starts_with_make_demo_and_make_test() -> None:
    first = shell_blocks()[0].splitlines()
    assert [line.split("#")[0].strip() for line in first] == ["make demo", "make test"]


def test_the_five_command_tour_runs_and_ends_verified(tmp_path: Path) -> None:
    tour = shell_blocks()[1]
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "NO_COLOR": "1"}
    env.pop("DICELEDGER_DB", None)
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", tour],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "ann check: 1d20" in result.stdout
    assert "verified: the chain, versions, rules, nonces, commitments and every outcome hold" in (
        result.stdout
    )
    assert (tmp_path / "table.sqlite").exists()


def test_completion_instructions_produce_a_bash_completion_script() -> None:
    bin_dir = Path(sys.executable).parent
    result = subprocess.run(
        [str(bin_dir / "diceledger")],
        env={**os.environ, "_DICELEDGER_COMPLETE": "bash_source"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "_diceledger_completion" in result.stdout

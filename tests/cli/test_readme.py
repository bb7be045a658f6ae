"""The README opens with its two commands and how to reach `diceledger`.

tests/cli/test_examples.py runs its shell blocks.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def shell_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_starts_with_make_demo_and_make_test_then_says_how_to_reach_the_command() -> (
    None
):
    first = [line.split("#")[0].strip() for line in shell_blocks()[0].splitlines()]
    assert first == ["make demo", "make test", ". .venv/bin/activate"]
    opening = README.read_text().split("\n## ")[0]
    assert "in each new" in opening and ".venv/bin/diceledger" in opening


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

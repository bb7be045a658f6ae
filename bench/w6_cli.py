"""W6: wall time of `diceledger --help` and of one `check`, against Python's own start-up.

Each command runs as a fresh process, as a person's shell would run it; rounds are
interleaved so load on the machine hits every command alike, and figures are medians.
Baselines: `python -c pass` (the interpreter alone) and `python -c "import sqlalchemy"`
(what any command touching the store must import).

Run: .venv/bin/python bench/w6_cli.py [--quick] [--rounds N]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.stats import median

BIN = Path(sys.executable).parent


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    options = parse_options(__doc__.splitlines()[0])
    rounds = options.rounds or (3 if options.quick else 15)
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w6-"))
    env = {**os.environ, "DICELEDGER_DB": f"sqlite:///{folder / 'w6.sqlite'}", "NO_COLOR": "1"}
    cli = str(BIN / "diceledger")
    started = subprocess.run(
        [cli, "--as", "gm", "--json", "session", "start", "W6"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    session = json.loads(started.stdout)["session_id"]
    subprocess.run(
        [cli, "--as", "ann", "session", "join", session], env=env, check=True, capture_output=True
    )
    commands = {
        "python_pass": [sys.executable, "-c", "pass"],
        "python_import_sqlalchemy": [sys.executable, "-c", "import sqlalchemy"],
        "help": [cli, "--help"],
        "check": [cli, "--as", "ann", "check", session, "1d20+5", "--target", "15", "--adv", "1"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for number in range(rounds):
        progress(f"round {number + 1}/{rounds}")
        for name, command in commands.items():
            times[name].append(timed(command, env))
    medians = {name: round(median(values), 4) for name, values in times.items()}
    emit(
        "w6_cli",
        options.quick,
        machine=describe(),
        rounds=rounds,
        median_seconds=medians,
        help_vs_python=round(medians["help"] / medians["python_pass"], 2),
        check_vs_python=round(medians["check"] / medians["python_pass"], 2),
        check_vs_import_sqlalchemy=round(medians["check"] / medians["python_import_sqlalchemy"], 2),
    )


if __name__ == "__main__":
    main()

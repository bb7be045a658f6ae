"""W9: start-up of `diceledger check` as a fresh process, against `import sqlalchemy`.

Issue 17 asks that a `check` run as a shell runs it (a new process: the interpreter, the
imports, opening the store, loading the session, deciding, appending with an fsync,
signing the checkpoint, printing) take at most twice as long as `python -c "import
sqlalchemy"`, what any command touching the store must import at least. `python -c pass`
(the interpreter alone) and `diceledger --help` (no store) are timed alongside.

The store is a SQLite file prepared once, as a user would, by the CLI itself: a GM starts
a session and two players join; every timed `check` then appends one roll to it (a player
of ann's, `1d20+5 --target 15 --adv 1`). All four commands run in every round, in an
order that rotates from round to round; an untimed first round fills the bytecode cache
(see benchlib.processes). Figures are medians over rounds; ratios are medians of the
per-round ratios. Wall time is what the target is about; each process's CPU time (user +
system) is given too, as it moves less when other jobs share the machine.

--profile also prints, on stderr, where a `check` process spends its time: the modules
it imports (`-X importtime`, top cumulative, medians of 7 processes) and a cProfile of
one whole process (top functions by own time).

Run: .venv/bin/python bench/w9_startup.py [--quick] [--rounds N] [--profile]
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.processes import timed, timed_with_cpu, user_environment
from benchlib.stats import median, median_ratio

BIN = Path(sys.executable).parent
TARGET_RATIO = 2.0
IMPORTTIME = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def prepare(cli: str, env: dict[str, str]) -> str:
    """Start a session as GM gm, with players ann and bob; return its id."""

    def run(*args: str) -> str:
        return subprocess.run(
            [cli, *args], env=env, check=True, capture_output=True, text=True
        ).stdout

    started = json.loads(run("--as", "gm", "--json", "session", "start", "W9 start-up"))
    session = str(started["session_id"])
    for player in ("ann", "bob"):
        run("--as", player, "session", "join", session)
    return session


def commands(cli: str, session: str) -> dict[str, list[str]]:
    """The commands timed in every round, by name."""
    check = ["--as", "ann", "check", session, "1d20+5", "--target", "15", "--adv", "1"]
    return {
        "python_pass": [sys.executable, "-c", "pass"],
        "python_import_sqlalchemy": [sys.executable, "-c", "import sqlalchemy"],
        "help": [cli, "--help"],
        "check": [cli, *check],
    }


def import_times(stderr: str) -> dict[str, tuple[int, int]]:
    """Return each module's (cumulative, self) import time in microseconds, at depth <= 2."""
    found = {}
    for line in stderr.splitlines():
        match = IMPORTTIME.match(line)
        if match and len(match.group(3)) // 2 <= 2:
            found[match.group(4)] = (int(match.group(2)), int(match.group(1)))
    return found


def import_summary(runs: list[dict[str, tuple[int, int]]], top: int) -> str:
    """Return the ``top`` imports by median cumulative time over ``runs``."""
    names = set().union(*runs)
    rows = sorted(
        (
            (
                median([run.get(name, (0, 0))[0] for run in runs]),
                median([run.get(name, (0, 0))[1] for run in runs]),
                name,
            )
            for name in names
        ),
        reverse=True,
    )
    lines = [f"{'cumulative':>12} {'self':>8}  module (depth <= 2; medians of {len(runs)} runs)"]
    lines += [f"{total / 1000:10.1f}ms {own / 1000:6.1f}ms  {name}" for total, own, name in rows]
    return "\n".join(lines[: top + 1])


def print_profiles(check: list[str], env: dict[str, str], runs: int) -> None:
    """Print the imports and the cProfile of `check` processes, on stderr."""
    script, *args = check
    imports = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", script, *args],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        imports.append(import_times(done.stderr))
    print("== imports of a check process (-X importtime) ==", file=sys.stderr)
    print(import_summary(imports, 30), file=sys.stderr, flush=True)
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-s", "tottime", script, *args],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    table = done.stdout.split("\n", 1)[1]  # the command's own output line comes first
    print("== profile: one check process, by own time ==", file=sys.stderr)
    print("\n".join(table.splitlines()[:35]), file=sys.stderr, flush=True)


def main() -> None:
    options = parse_options(__doc__.splitlines()[0])
    rounds = options.rounds or (5 if options.quick else 15)
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w9-"))
    env = user_environment(folder, f"sqlite:///{folder / 'w9.sqlite'}")
    cli = str(BIN / "diceledger")
    load_before = os.getloadavg()
    progress("preparing a session through the CLI")
    session = prepare(cli, env)
    timed_commands = commands(cli, session)
    names = list(timed_commands)
    for command in timed_commands.values():  # warm-up: fills the bytecode cache
        timed(command, env)
    times: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for number in range(rounds):
        progress(f"round {number + 1}/{rounds}")
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            wall, used = timed_with_cpu(timed_commands[name], env)
            times[name].append(wall)
            cpu[name].append(used)
    if options.profile:
        print_profiles(timed_commands["check"], env, 3 if options.quick else 7)
    check_vs_sqlalchemy = median_ratio(times["check"], times["python_import_sqlalchemy"])
    emit(
        "w9_startup",
        options.quick,
        machine=describe(),
        load_average_before_after=[round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        rounds=rounds,
        median_seconds={name: round(median(values), 4) for name, values in times.items()},
        check_vs_import_sqlalchemy=check_vs_sqlalchemy,
        cpu_median_seconds={name: round(median(values), 4) for name, values in cpu.items()},
        cpu_check_vs_import_sqlalchemy=median_ratio(cpu["check"], cpu["python_import_sqlalchemy"]),
        check_vs_python=median_ratio(times["check"], times["python_pass"]),
        help_vs_python=median_ratio(times["help"], times["python_pass"]),
        import_sqlalchemy_vs_python=median_ratio(
            times["python_import_sqlalchemy"], times["python_pass"]
        ),
        target_ratio=TARGET_RATIO,
        within_target=check_vs_sqlalchemy <= TARGET_RATIO,
    )


if __name__ == "__main__":
    main()

"""W6: wall time of `diceledger --help` and of whole commands, against Python's own start-up.

Each command runs as a fresh process, as a person's shell would run it; rounds are
interleaved so load on the machine hits every command alike, and figures are medians.
Baselines: `python -c pass` (the interpreter alone) and `python -c "import sqlalchemy"`
(what any command touching the store must import). Every command but `--help` runs
twice: in a new session, and in a long one (a GM, two players and LONG_ROLLS checks,
about three times as many events), because each command replays its session's stream.
Then, once per round, a whole table session (the one docs/cli.md shows, plus a dispute,
replay, stats and verify) is played command by command, each command timed.
Issue 4 asks for half a second per command. Commands run with their bytecode cached and
the user data directory (keys, kept checkpoints) in the run's folder (benchlib.processes),
after one untimed warm-up round.

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
from benchlib.processes import timed, user_environment
from benchlib.stats import median

from diceledger.domain.dice.request import Target
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount
from diceledger.infra.bootstrap import bootstrap

BIN = Path(sys.executable).parent
LONG_ROLLS = 500
TARGET_SECONDS = 0.5


def new_session(url: str, rolls: int) -> tuple[str, int]:
    """Start a session with a GM and players ann and bob who make ``rolls`` checks."""
    app = bootstrap(url)
    session = app.start_session("gm", f"W6 {rolls}").session_id
    for player in ("ann", "bob"):
        app.join(player, session, cmd.JoinSession(player))
    check = cmd.RequestRoll(
        kind="check", expression="1d20+3", advantage=(Amount(1),), target=Target(12)
    )
    for number in range(rolls):
        app.request_roll(("ann", "bob")[number % 2], session, check)
    events = app.session("gm", session).state.version
    app.close()
    return session, events


def session_commands(cli: str, session: str) -> dict[str, list[str]]:
    """The commands a table runs most, against ``session``."""
    return {
        "check": [cli, "--as", "ann", "check", session, "1d20+5", "--target", "15", "--adv", "1"],
        "roll": [cli, "--as", "bob", "roll", session, "8d6+3"],
        "opposed": [cli, "--as", "ann", "opposed", session, "1d20+2", "--vs", "bob", "1d20"],
        "session_show": [cli, "--as", "gm", "session", "show", session],
        "verify": [cli, "--as", "gm", "verify", session],
    }


def table_session(cli: str, env: dict[str, str]) -> dict[str, float]:
    """Play a whole session as a GM (mara) and two players would; time every command."""
    times: dict[str, float] = {}

    def run(label: str, actor: str, *args: str) -> dict[str, object]:
        started = time.perf_counter()
        done = subprocess.run(
            [cli, "--as", actor, "--json", *args], env=env, check=True, capture_output=True
        )
        times[label] = time.perf_counter() - started
        first = done.stdout.split(b"\n", 1)[0]  # replay prints JSON Lines
        return json.loads(first) if first.startswith(b"{") else {}

    s = str(run("session start", "mara", "session", "start", "Tomb of Ash")["session_id"])
    run("session join", "ann", "session", "join", s, "--client-seed", "ann's lucky words")
    run("session join (2nd)", "bob", "session", "join", s)
    run("session list", "mara", "session", "list")
    run("check --adv", "ann", "check", s, "1d20+5", "--target", "15", "--adv", "1:flank")
    save = run(
        "save --reroll 1",
        "bob",
        "save",
        s,
        "1d20+1",
        "--dc",
        "3:WIS",
        "--against",
        "banshee wail",
        "--reroll",
        "1",
    )
    run("reroll", "bob", "reroll", s, str(save["roll_id"]), "--die", "0")
    run("roll --faces", "ann", "roll", s, "1d6+2", "--kind", "damage", "--faces", "6,6,4,2")
    damage = run("roll --reroll 1", "ann", "roll", s, "2d8", "--kind", "damage", "--reroll", "1")
    run("accept", "ann", "accept", s, str(damage["roll_id"]))
    run("opposed", "ann", "opposed", s, "1d20+2", "--vs", "bob", "1d20+1")
    blind = run(
        "check --blind (GM)",
        "mara",
        "check",
        s,
        "1d20+4",
        "--target",
        "14",
        "--for",
        "goblin",
        "--blind",
    )
    run("session show", "ann", "session", "show", s)
    run("reveal", "mara", "reveal", s, str(blind["roll_id"]))
    run("opposed vs NPC (GM)", "mara", "opposed", s, "1d20+3", "--vs", "ogre", "1d20+5")
    run("dispute open", "bob", "dispute", "open", s, "1", "--reason", "rolled off the table")
    run("dispute review", "mara", "dispute", "review", s, "1")
    run("dispute resolve", "mara", "dispute", "resolve", s, "1", "--uphold")
    run("seed reveal", "mara", "seed", "reveal", s)
    run("replay", "ann", "replay", s)
    run("stats", "mara", "stats", "--session", s)
    run("session end", "mara", "session", "end", s)
    run("verify", "bob", "verify", s)
    return times


def main() -> None:
    options = parse_options(__doc__.splitlines()[0])
    rounds = options.rounds or (3 if options.quick else 15)
    long_rolls = 100 if options.quick else LONG_ROLLS
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w6-"))
    url = f"sqlite:///{folder / 'w6.sqlite'}"
    env = user_environment(folder, url)
    # The sessions made here are signed and sealed with the keys the commands will use.
    os.environ["XDG_DATA_HOME"] = env["XDG_DATA_HOME"]
    for name in ("DICELEDGER_SEED_KEY", "DICELEDGER_SIGNING_KEY", "DICELEDGER_CHECKPOINTS"):
        os.environ.pop(name, None)
    cli = str(BIN / "diceledger")
    progress(f"preparing a new session and one of {long_rolls} checks")
    short, short_events = new_session(url, 0)
    long, long_events = new_session(url, long_rolls)
    commands = {
        "python_pass": [sys.executable, "-c", "pass"],
        "python_import_sqlalchemy": [sys.executable, "-c", "import sqlalchemy"],
        "help": [cli, "--help"],
        **session_commands(cli, short),
        **{f"{name}_long": argv for name, argv in session_commands(cli, long).items()},
    }
    for command in commands.values():  # warm-up: fills the bytecode cache
        timed(command, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for number in range(rounds):
        progress(f"round {number + 1}/{rounds}")
        for name, command in commands.items():
            times[name].append(timed(command, env))
    progress(f"playing {rounds} whole table sessions")
    table: dict[str, list[float]] = {}
    for _ in range(rounds):
        for label, seconds in table_session(cli, env).items():
            table.setdefault(label, []).append(seconds)
    medians = {name: round(median(values), 4) for name, values in times.items()}
    table_medians = {label: round(median(values), 4) for label, values in table.items()}
    slowest = max(
        *(value for name, value in medians.items() if not name.startswith("python")),
        *table_medians.values(),
    )
    emit(
        "w6_cli",
        options.quick,
        machine=describe(),
        rounds=rounds,
        events_in_session={"new": short_events, "long": long_events},
        median_seconds=medians,
        table_session_median_seconds=table_medians,
        slowest_command_seconds=slowest,
        within_target=slowest <= TARGET_SECONDS,
        help_vs_python=round(medians["help"] / medians["python_pass"], 2),
        check_vs_python=round(medians["check"] / medians["python_pass"], 2),
        check_vs_import_sqlalchemy=round(medians["check"] / medians["python_import_sqlalchemy"], 2),
        check_long_vs_new=round(medians["check_long"] / medians["check"], 2),
    )


if __name__ == "__main__":
    main()

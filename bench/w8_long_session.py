"""W8: a `check` command on a 20,000-event session against the same command on a new one.

One SQLite store wired as `bootstrap` wires it (signed appends, seed vault, snapshots),
holding a new session (a GM and a player) and a long one (the same, then checks up to
LONG_EVENTS events, built once and untimed, in signed batches). The command is
`RequestRoll(kind=check, 1d20+5, advantage 1, target 15)` by the player, as in W3 (c).
Measured, in interleaved rounds, each on the new session and on the long one:

- cold: a fresh Application per command, as a CLI process builds it (engine, schema
  check, keyring), then the command; "snapshots off" builds it without snapshots, which
  is how every command ran before them (it replays the whole session);
- cold_tail: the same on a second long session whose snapshot lies nearly as far behind
  its head as a snapshot ever does (a SNAPSHOT_SHARE-th of the session), the most a
  fresh process folds after reading one;
- warm: one long-lived Application (a server worker), WARM_COMMANDS commands in a row on
  each session it has loaded; a round's figure is their mean, so the snapshot writes
  that land on one command in many count as a server pays them;
- cli: `diceledger check` as a fresh process (and, off, the same CLI with snapshots
  disabled in the process), unless --no-cli.

A snapshot is written after a command once max(100, a SNAPSHOT_SHARE-th of the last
snapshot's events) were folded past it; the build leaves the long session at a snapshot,
and the rounds' commands grow its tail from there (up to that spacing, then it is written
again). --fixed-spacing writes one every 100 events instead, as before. Ratios are long /
new, medians of per-round ratios; "total" is the ratio of the summed times of every round.

Run: .venv/bin/python bench/w8_long_session.py [--quick] [--rounds N] [--profile] [--no-cli]
     [--fixed-spacing]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.profiling import print_profile
from benchlib.stats import median, median_ratio

from diceledger.domain import __version__
from diceledger.domain.dice.request import Target
from diceledger.domain.dice.sources import DiceSource, SeededSource
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.events import Amount
from diceledger.domain.session.state import evolve
from diceledger.infra.app import sessions
from diceledger.infra.app.application import Application
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.bootstrap import bootstrap
from diceledger.infra.codec.events import new_event
from diceledger.infra.ledger.checkpoint_ledger import CheckpointLedger
from diceledger.infra.ledger.signing import open_keyring
from diceledger.infra.snapshots.store import SnapshotStore
from diceledger.infra.store.database import make_engine, open_engine
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import SeedVault

LONG_EVENTS = 20_000
WARM_COMMANDS = 34  # about 100 events: a snapshot's spacing on a session of 2,000
TARGET = 1.2
SEED = b"w8" * 16
CHECK = cmd.RequestRoll(
    kind="check", expression="1d20+5", advantage=(Amount(1),), target=Target(15)
)
CLI_ARGS = ["--as", "player", "check", "{session}", "1d20+5", "--target", "15", "--adv", "1"]
# The CLI with snapshots disabled in its process: what every command did before them.
CLI_OFF = (
    "import sys; from diceledger.infra.snapshots.store import SnapshotStore as S; "
    "S.load = lambda self, stream_id: None; S.save = lambda self, state, head: False; "
    "from diceledger.cli.main import main; sys.argv[0] = 'diceledger'; main()"
)


def build(url: str, events: int, rounds: int) -> tuple[list[str], str, str]:
    """Make a new session per round and two of ``events`` events; return their ids.

    The first long one is left at its snapshot; the second with its snapshot as far
    behind its head as ``rounds`` more commands leave it without writing a new one.
    """
    engine = open_engine(url)
    store, vault = SqlEventStore(engine), SeedVault(engine)
    ledger = CheckpointLedger(engine, open_keyring())
    ids = iter(range(rounds + 2))
    service = SessionService(
        store, vault, new_seed=lambda: SEED, new_suffix=lambda: f"{next(ids):03d}", ledger=ledger
    )
    news = [service.start("new", "gm").session_id for _ in range(rounds)]
    long = service.start("long", "gm").session_id
    tail = service.start("tail", "gm").session_id
    for session in (*news, long, tail):
        service.execute(session, "player", cmd.JoinSession("player"))

    def grow(session: str, until: int) -> None:
        # Decided command by command as the service would, appended and signed 1,000 at
        # a time: the same log, without 5,000 separate transactions.
        state = service.load(session)

        def dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
            return SeededSource(SEED, session, nonce, client_seed, salt)

        while state.version < until:
            batch, expected = [], state.version
            while len(batch) < 1_000 and state.version < until:
                decided = decide(state, CHECK, Context("player", dice))
                meta = {"actor": "player", "correlation_id": str(uuid.uuid4())}
                meta["client_version"] = __version__
                for event in decided:
                    evolve(state, state.version + 1, event)
                    batch.append(new_event(event, str(uuid.uuid4()), meta))
            ledger.append_signed(store, session, batch, expected)
            progress(f"w8: {session} at {state.version} events")

    grow(long, events)
    grow(tail, events - events // sessions.SNAPSHOT_SHARE)
    # One command writes each long session's first snapshot (a full replay and encode).
    app = bootstrap(url)
    app.request_roll("player", long, CHECK)
    app.request_roll("player", tail, CHECK)
    app.close()
    # Then the tail grows to just short of the next snapshot's due, less what the rounds'
    # commands (at most 4 events each) append.
    at = service.load(tail).version
    grow(tail, at + max(sessions.SNAPSHOT_EVERY, at // sessions.SNAPSHOT_SHARE) - 4 * rounds - 4)
    engine.dispose()
    return news, long, tail


def fresh_app(url: str, snapshots: bool) -> Application:
    """Wire the application as bootstrap does; without snapshots, as before them."""
    if snapshots:
        return bootstrap(url)
    engine = make_engine(url)
    keyring = open_keyring()
    return Application(
        SqlEventStore(engine),
        SeedVault(engine),
        url,
        engine,
        ledger=CheckpointLedger(engine, keyring),
        keyring=keyring,
    )


def cold(url: str, session: str, snapshots: bool) -> float:
    started = time.perf_counter()
    app = fresh_app(url, snapshots)
    app.request_roll("player", session, CHECK)
    seconds = time.perf_counter() - started
    app.close()
    return seconds


def warm_mean(app: Application, session: str) -> float:
    """Return the mean time of WARM_COMMANDS commands in a row on ``session``."""
    started = time.perf_counter()
    for _ in range(WARM_COMMANDS):
        app.request_roll("player", session, CHECK)
    return (time.perf_counter() - started) / WARM_COMMANDS


def cli(argv: list[str], session: str, env: dict[str, str]) -> float:
    command = [*argv, *(arg.format(session=session) for arg in CLI_ARGS)]
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def summary(new: list[float], long: list[float]) -> dict[str, Any]:
    ratio = median_ratio(long, new)
    return {
        "new_ms": round(median(new) * 1000, 2),
        "long_ms": round(median(long) * 1000, 2),
        "long_vs_new": ratio,
        "total_long_vs_new": round(sum(long) / sum(new), 3),
        "met": ratio <= TARGET,
    }


def main() -> None:
    options = parse_options(__doc__.splitlines()[0], _add_options)
    if options.fixed_spacing:  # no share of the session: max(100, 0) events apart
        sessions.SNAPSHOT_SHARE = sys.maxsize
    machine = describe()
    rounds = options.rounds or (5 if options.quick else 15)
    events = 2_000 if options.quick else LONG_EVENTS
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w8-"))
    os.environ["DICELEDGER_SIGNING_KEY"] = str(folder / "signing.key")
    os.environ["DICELEDGER_SEED_KEY"] = str(folder / "seed.key")
    url = f"sqlite:///{folder / 'w8.sqlite'}"
    try:
        progress(f"w8: building a new session and one of {events} events")
        news, long, tail = build(url, events, rounds)
        times: dict[str, list[float]] = {}

        def record(name: str, seconds: float) -> None:
            times.setdefault(name, []).append(seconds)

        warm = bootstrap(url)
        warm.request_roll("player", long, CHECK)  # the server has seen the long session
        env = {**os.environ, "DICELEDGER_DB": url, "NO_COLOR": "1"}
        env["XDG_DATA_HOME"] = str(folder / "data")  # checkpoints the CLI keeps
        ours = [str(Path(sys.executable).parent / "diceledger")]
        off = [sys.executable, "-c", CLI_OFF]
        for number in range(rounds):
            progress(f"w8: round {number + 1}/{rounds}")
            # A new session each round, so that it stays new (a dozen events at most).
            for label, session in (("new", news[number]), ("long", long)):
                record(f"cold_{label}", cold(url, session, True))
                record(f"cold_off_{label}", cold(url, session, False))
                if label == "new":
                    record("cold_tail_new", times["cold_new"][-1])
                    warm.request_roll("player", session, CHECK)  # and the server has it
                else:
                    record("cold_tail_long", cold(url, tail, True))
                record(f"warm_{label}", warm_mean(warm, session))
                if not options.no_cli:
                    record(f"cli_{label}", cli(ours, session, env))
                    record(f"cli_off_{label}", cli(off, session, env))
        warm.close()
        if options.profile:
            print_profile("w8 cold check on the long session", lambda: cold(url, long, True))
            print_profile("w8 cold check, snapshots off", lambda: cold(url, long, False))
        figures = {
            name: summary(times[f"{name}_new"], times[f"{name}_long"])
            for name in ("cold", "cold_tail", "cold_off", "warm", "cli", "cli_off")
            if f"{name}_new" in times
        }
        engine = make_engine(url)
        store = SqlEventStore(engine)
        long_events, tail_events = store.current_version(long), store.current_version(tail)
        snapshot = SnapshotStore(engine).load(long)
        tail_snapshot = SnapshotStore(engine).load(tail)
        engine.dispose()
        emit(
            "w8_long_session",
            options.quick,
            machine=machine,
            rounds=rounds,
            events_in_session={"new_at_end": store_version(url, news[0]), "long": long_events},
            snapshot_at_end=None if snapshot is None else snapshot.version,
            tail_session={
                "events": tail_events,
                "snapshot_at_end": None if tail_snapshot is None else tail_snapshot.version,
            },
            warm_commands=WARM_COMMANDS,
            snapshot_spacing="fixed 100" if options.fixed_spacing else "share",
            target_long_vs_new=TARGET,
            **figures,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def store_version(url: str, session: str) -> int:
    engine = make_engine(url)
    try:
        return SqlEventStore(engine).current_version(session)
    finally:
        engine.dispose()


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-cli", action="store_true", help="skip the fresh-process CLI measurements"
    )
    parser.add_argument(
        "--fixed-spacing",
        action="store_true",
        help="write snapshots every 100 events whatever the session's length (as before)",
    )


if __name__ == "__main__":
    main()

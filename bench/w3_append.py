"""W3: append throughput on SQLite against raw sqlite3 and eventsourcing's recorder.

(a) one event per transaction, durable (WAL, synchronous=FULL), N=20,000 events of about
300 bytes; (b) batches of 1,000, N=200,000. Every side appends to one stream (a long
session) in a fresh database file per round; within a round the sides take turns, a
twentieth of N at a time, and each ratio is the median of per-round ratios. diceledger's
figure includes its hash chain, the version check and the idempotency check (the unique
index on event ids, and a lookup once an insert meets it).
Targets: >= 0.7x raw sqlite3 and >= 1x eventsourcing.
(c) whole ``check`` commands through the session service, in segments as the session
grows (no target; flat is the goal).

Run: .venv/bin/python bench/w3_append.py [--quick] [--rounds N] [--profile] [--parts a b c]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any, Protocol

from benchlib.events import data_size, new_events
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.profiling import print_profile
from benchlib.sqlite_peers import EventsourcingAppender, RawSqliteAppender
from benchlib.stats import median, median_ratio

from diceledger.domain.dice.request import Target
from diceledger.domain.records import NewEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount
from diceledger.infra.bootstrap import bootstrap
from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.sql import SqlEventStore

TARGET_VS_RAW = 0.7
TARGET_VS_EVENTSOURCING = 1.0
STREAM = "session-w3"
CHUNKS = 20  # turns per side per round


class Appender(Protocol):
    def append(
        self, stream_id: str, events: Sequence[NewEvent], expected_version: int
    ) -> object: ...


class DiceledgerAppender:
    """diceledger's SqlEventStore on a file, schema created by its migrations."""

    def __init__(self, path: str) -> None:
        url = f"sqlite:///{path}"
        upgrade(url)
        self.engine = make_engine(url)
        self.store = SqlEventStore(self.engine)

    def append(self, stream_id: str, events: Sequence[NewEvent], expected_version: int) -> None:
        self.store.append(stream_id, events, expected_version)

    def close(self) -> None:
        self.engine.dispose()


SIDES: dict[str, Callable[[str], Any]] = {
    "diceledger": DiceledgerAppender,
    "raw_sqlite3": RawSqliteAppender,
    "eventsourcing": EventsourcingAppender,
}


def events_per_second(appender: Appender, events: Sequence[NewEvent], batch: int) -> float:
    """Append ``events`` in batches of ``batch`` to one stream; return events per second."""
    started = time.perf_counter()
    for start in range(0, len(events), batch):
        appender.append(STREAM, events[start : start + batch], start)
    return len(events) / (time.perf_counter() - started)


def run_side(side: str, events: Sequence[NewEvent], batch: int) -> float:
    """Time one side on a fresh database file and remove it afterwards."""
    folder = tempfile.mkdtemp(prefix=f"diceledger-bench-w3-{side}-")
    try:
        appender = SIDES[side](str(Path(folder) / "events.sqlite"))
        try:
            return events_per_second(appender, events, batch)
        finally:
            appender.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_round(events: Sequence[NewEvent], batch: int) -> dict[str, float]:
    """Run one round: every side on its own fresh file, taking turns chunk by chunk.

    Each side appends 1/CHUNKS of the events, then the next side does, in a rotating
    order, so a load swing on this shared machine hits every side alike. Returns each
    side's events per second over its own appending time.
    """
    chunk = max(batch, len(events) // CHUNKS // batch * batch)
    folder = tempfile.mkdtemp(prefix="diceledger-bench-w3-")
    appenders = {side: make(str(Path(folder) / f"{side}.sqlite")) for side, make in SIDES.items()}
    seconds = dict.fromkeys(SIDES, 0.0)
    try:
        for turn, chunk_start in enumerate(range(0, len(events), chunk)):
            starts = range(chunk_start, min(chunk_start + chunk, len(events)), batch)
            order = list(SIDES)[turn % len(SIDES) :] + list(SIDES)[: turn % len(SIDES)]
            for side in order:
                began = time.perf_counter()
                for start in starts:
                    appenders[side].append(STREAM, events[start : start + batch], start)
                seconds[side] += time.perf_counter() - began
    finally:
        for appender in appenders.values():
            appender.close()
        shutil.rmtree(folder, ignore_errors=True)
    return {side: len(events) / spent for side, spent in seconds.items()}


def measure(events: Sequence[NewEvent], batch: int, rounds: int) -> dict[str, Any]:
    """Run ``rounds`` rounds; return median rates and median per-round ratios."""
    rates: dict[str, list[float]] = {side: [] for side in SIDES}
    for round_number in range(1, rounds + 1):
        for side, rate in run_round(events, batch).items():
            rates[side].append(rate)
        progress(f"w3 batch={batch} round {round_number}: " + _latest(rates))
    vs_raw = median_ratio(rates["diceledger"], rates["raw_sqlite3"])
    vs_es = median_ratio(rates["diceledger"], rates["eventsourcing"])
    return {
        "n": len(events),
        "batch": batch,
        "events_per_s": {side: round(median(values)) for side, values in rates.items()},
        "ratio_vs_raw_sqlite3": vs_raw,
        "target_vs_raw_sqlite3": TARGET_VS_RAW,
        "ratio_vs_eventsourcing": vs_es,
        "target_vs_eventsourcing": TARGET_VS_EVENTSOURCING,
        "met": vs_raw >= TARGET_VS_RAW and vs_es >= TARGET_VS_EVENTSOURCING,
    }


def _latest(rates: dict[str, list[float]]) -> str:
    return ", ".join(f"{side} {values[-1]:.0f}/s" for side, values in rates.items())


def check_commands(quick: bool, profile: bool = False) -> dict[str, Any]:
    """W3(c): whole ``check`` commands per second through the session service.

    One SQLite store wired by ``bootstrap``, driven through the application layer as the
    faces drive it; a GM starts a session and a player joins,
    then the player runs ``check 1d20+5 --advantage 1 --target 15`` again and again. Each
    command loads the session, decides and appends (3 or 4 events). The commands are
    timed in consecutive segments, so a cost that grows with the session shows.
    """
    segments, per_segment = (2, 30) if quick else (3, 100)
    folder = tempfile.mkdtemp(prefix="diceledger-bench-w3c-")
    try:
        app = bootstrap(f"sqlite:///{Path(folder) / 'sessions.sqlite'}")
        session = app.start_session("gm", "bench table").session_id
        app.join("player", session, cmd.JoinSession("player"))
        check = cmd.RequestRoll(
            kind="check", expression="1d20+5", advantage=(Amount(1),), target=Target(15)
        )
        figures = []
        version = app.session("gm", session).state.version
        for _ in range(segments):
            before = version
            started = time.perf_counter()
            for _ in range(per_segment):
                version = app.request_roll("player", session, check).appended[-1].stream_version
            seconds = time.perf_counter() - started
            figures.append(
                {
                    "events_in_session_at_start": before,
                    "commands_per_s": round(per_segment / seconds, 2),
                    "events_per_command": round((version - before) / per_segment, 2),
                }
            )
            progress(f"w3 (c): {figures[-1]}")
        if profile:
            print_profile(
                f"w3 (c) 20 check commands at version {version}",
                lambda: [app.request_roll("player", session, check) for _ in range(20)],
            )
        first, last = figures[0]["commands_per_s"], figures[-1]["commands_per_s"]
        return {
            "commands_per_segment": per_segment,
            "segments": figures,
            "ratio_last_vs_first_segment": round(last / first, 3),
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def pragmas() -> dict[str, Any]:
    """Report the journal mode and synchronous level each side really ran with."""
    folder = tempfile.mkdtemp(prefix="diceledger-bench-w3-pragmas-")
    try:
        found: dict[str, Any] = {}
        ours = DiceledgerAppender(str(Path(folder) / "ours.sqlite"))
        with ours.engine.connect() as connection:
            found["diceledger"] = [
                connection.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "synchronous")
            ]
        ours.close()
        for side in ("raw_sqlite3", "eventsourcing"):
            peer = SIDES[side](str(Path(folder) / f"{side}.sqlite"))
            found[side] = [peer.pragma(name) for name in ("journal_mode", "synchronous")]
            peer.close()
        return found
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    """Measure (a), (b) and (c) and print one JSON line."""
    options = parse_options(__doc__.splitlines()[0], _add_parts_option)
    machine = describe()  # at the start: the code measured, not the code at the end
    parts = set(options.parts)
    n_single = 2_000 if options.quick else 20_000
    n_batched = 20_000 if options.quick else 200_000
    rounds = options.rounds or (1 if options.quick else 3)
    figures: dict[str, Any] = {}
    if parts & {"a", "b"}:
        progress(f"w3: building {n_batched} events of about {data_size()} bytes")
        events = new_events(n_batched)
    if "a" in parts:
        progress(f"w3 (a): one event per transaction, N={n_single}, {rounds} rounds")
        figures["a_one_event_per_transaction"] = measure(events[:n_single], 1, rounds)
        if options.profile:
            print_profile("w3 (a) diceledger", lambda: run_side("diceledger", events[:n_single], 1))
    if "b" in parts:
        progress(f"w3 (b): batches of 1,000, N={n_batched}, {rounds} rounds")
        figures["b_batches_of_1000"] = measure(events, 1_000, rounds)
        if options.profile:
            print_profile("w3 (b) diceledger", lambda: run_side("diceledger", events, 1_000))
    if "c" in parts:
        figures["c_check_commands"] = check_commands(options.quick, options.profile)
    emit(
        "w3_append",
        options.quick,
        machine=machine,
        eventsourcing_version=version("eventsourcing"),
        event_data_bytes=data_size(),
        journal_mode_and_synchronous=pragmas(),
        rounds=rounds,
        **figures,
    )


def _add_parts_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--parts", nargs="+", choices=("a", "b", "c"), default=["a", "b", "c"],
        help="run only these parts of W3 (default: all)",
    )  # fmt: skip


if __name__ == "__main__":
    main()

"""Scaling: append and per-session read times with 10,000 vs 1,000,000 events stored.

Two SQLite stores (durable settings) hold 1,000-event sessions. The small store and the
first 10,000 events of the big one go through the store's own ``append``; the other
990,000 through ``benchlib.bulk_fill`` (same records, same hash chain, same table and row
mapper, without ``seal``'s per-value checks, which would make the fill take about ten
minutes on its own). A few bulk sessions are read back and their chains verified.

Then, in interleaved rounds on both stores: appending one event to an existing session
and opening a new session (one transaction each), reading a whole 1,000-event session,
looking up a session's version, and a catch-up read of the last 1,000 events. The goal
is flat: ratios big/small near 1.

Run: .venv/bin/python bench/scaling.py [--quick] [--rounds N] [--profile]
(--quick compares 10,000 with 100,000 events.)
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlib.bulk_fill import check_chains, insert_streams
from benchlib.events import new_event, new_events
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.profiling import print_profile
from benchlib.stats import median, percentile
from sqlalchemy.engine import Engine

from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.sql import SqlEventStore

SESSION_SIZE = 1_000
SMALL = 10_000
BIG = 1_000_000
QUICK_BIG = 100_000


def session_id(number: int) -> str:
    """Return the id of the n-th generated session."""
    return f"session-{number:07d}"


FILL_BATCH_SESSIONS = 10  # sessions per bulk transaction: 10,000 events


def fill_through_append(store: SqlEventStore, sessions: range) -> float:
    """Append 1,000-event sessions through the store's own append; return events/s."""
    started = time.perf_counter()
    for number in sessions:
        store.append(session_id(number), new_events(SESSION_SIZE, number * SESSION_SIZE), 0)
    return len(sessions) * SESSION_SIZE / (time.perf_counter() - started)


def fill_in_bulk(engine: Engine, sessions: range) -> float:
    """Add sessions through the bulk path, 10 per transaction; return events/s."""
    started = time.perf_counter()
    for first in range(sessions.start, sessions.stop, FILL_BATCH_SESSIONS):
        numbers = range(first, min(first + FILL_BATCH_SESSIONS, sessions.stop))
        insert_streams(
            engine,
            {session_id(n): new_events(SESSION_SIZE, n * SESSION_SIZE) for n in numbers},
        )
        if numbers.stop % 100 == 0:
            done = (numbers.stop - sessions.start) * SESSION_SIZE
            progress(f"scaling: bulk-filled {done:,} events")
    return len(sessions) * SESSION_SIZE / (time.perf_counter() - started)


def timed_ms(work: Callable[[], object], repeat: int) -> list[float]:
    """Return the sorted times in milliseconds of ``repeat`` calls of ``work``."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return sorted(times)


class Probe:
    """The operations timed on one store, with the state they need between rounds."""

    def __init__(self, store: SqlEventStore, events: int, appends: int, reads: int) -> None:
        self.store = store
        self.sessions = events // SESSION_SIZE
        self.appends, self.reads = appends, reads
        self.random = random.Random(events)
        # Appends go to one session in the middle; reads to the untouched others.
        self.growing = session_id(self.sessions // 2)
        self.growing_version = store.current_version(self.growing)
        self.new_sessions = 0

    def untouched_session(self) -> str:
        number = self.random.randrange(self.sessions)
        return session_id(number if number != self.sessions // 2 else 0)

    def append_existing(self) -> None:
        self.store.append(self.growing, [new_event(self.growing_version)], self.growing_version)
        self.growing_version += 1

    def append_new_session(self) -> None:
        self.new_sessions += 1
        self.store.append(f"new-session-{self.new_sessions:06d}", [new_event(0)], 0)

    def read_session(self) -> None:
        records = list(self.store.read_stream(self.untouched_session()))
        assert len(records) == SESSION_SIZE, len(records)

    def current_version(self) -> None:
        self.store.current_version(self.untouched_session())

    def catch_up_last_1000(self) -> None:
        records = list(self.store.read_all(self.store.head_position() - 1000))
        assert len(records) == 1000, len(records)

    def round(self) -> dict[str, list[float]]:
        """Time every operation once over; return sorted times in ms per operation."""
        return {
            "append_to_existing_session": timed_ms(self.append_existing, self.appends),
            "append_opening_new_session": timed_ms(self.append_new_session, self.appends),
            "read_whole_session_1000": timed_ms(self.read_session, self.reads),
            "current_version_lookup": timed_ms(self.current_version, self.appends),
            "read_all_last_1000": timed_ms(self.catch_up_last_1000, self.reads),
        }


def summarise(small: list[dict[str, list[float]]], big: list[dict[str, list[float]]]) -> dict:
    """Reduce rounds to median p50 and p99 per operation, and the big/small ratio of p50s."""
    figures: dict[str, Any] = {}
    for operation in small[0]:
        small_p50 = [percentile(r[operation], 0.5) for r in small]
        big_p50 = [percentile(r[operation], 0.5) for r in big]
        figures[operation] = {
            "small_p50_ms": round(median(small_p50), 3),
            "big_p50_ms": round(median(big_p50), 3),
            "small_p99_ms": round(median([percentile(r[operation], 0.99) for r in small]), 3),
            "big_p99_ms": round(median([percentile(r[operation], 0.99) for r in big]), 3),
            "ratio_big_vs_small_p50": round(
                median([b / s for b, s in zip(big_p50, small_p50, strict=True)]), 3
            ),
        }
    return figures


def open_store(folder: str, name: str) -> tuple[SqlEventStore, Engine, Path]:
    """Create a migrated SQLite file in ``folder``; return a store, its engine, the path."""
    path = Path(folder) / f"{name}.sqlite"
    url = f"sqlite:///{path}"
    upgrade(url)
    engine = make_engine(url)
    return SqlEventStore(engine), engine, path


def main() -> None:
    """Fill both stores, time the operations in interleaved rounds, print one JSON line."""
    options = parse_options(__doc__.splitlines()[0])
    machine = describe()  # at the start: the code measured, not the code at the end
    big_size = QUICK_BIG if options.quick else BIG
    rounds = options.rounds or (2 if options.quick else 3)
    appends, reads = (50, 10) if options.quick else (200, 30)
    folder = tempfile.mkdtemp(prefix="diceledger-bench-scaling-")
    try:
        small_store, _, _ = open_store(folder, "small")
        big_store, big_engine, big_path = open_store(folder, "big")
        real_sessions = range(SMALL // SESSION_SIZE)
        append_rate = fill_through_append(small_store, real_sessions)
        started = time.perf_counter()
        # The big store starts like the small one, through append; the rest comes in bulk.
        fill_through_append(big_store, real_sessions)
        progress(f"scaling: {SMALL:,} events appended, bulk-filling to {big_size:,}")
        bulk_rate = fill_in_bulk(big_engine, range(len(real_sessions), big_size // SESSION_SIZE))
        fill_seconds = time.perf_counter() - started
        assert big_store.head_position() == big_size
        check_chains(big_store, [session_id(n) for n in (0, 10, big_size // SESSION_SIZE - 1)])
        probes = {
            "small": Probe(small_store, SMALL, appends, reads),
            "big": Probe(big_store, big_size, appends, reads),
        }
        results: dict[str, list[dict[str, list[float]]]] = {"small": [], "big": []}
        for round_number in range(1, rounds + 1):
            for name, probe in probes.items():
                results[name].append(probe.round())
            progress(f"scaling: round {round_number} of {rounds} done")
        if options.profile:
            print_profile("scaling: read one session, big store", probes["big"].read_session)
        emit(
            "scaling",
            options.quick,
            machine=machine,
            backend="sqlite (WAL, synchronous=FULL)",
            small_events=SMALL,
            big_events=big_size,
            session_size=SESSION_SIZE,
            big_file_mb=round(big_path.stat().st_size / 1e6),
            fill_through_append_events_per_s=round(append_rate),
            fill_in_bulk_events_per_s=round(bulk_rate),
            big_fill_seconds=round(fill_seconds),
            bulk_chains_verified=True,
            rounds=rounds,
            operations=summarise(results["small"], results["big"]),
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

"""W3 (b)'s floor by table layout: raw sqlite3 batches of 1,000 into three events tables.

What each of diceledger's indexes costs an append, against eventsourcing's recorder in the
same rounds: ``ours`` is the events table as the migrations make it (rowid AUTOINCREMENT,
unique (stream_id, stream_version), unique event_id); ``no_event_id_index`` drops the
unique event_id index; ``no_autoincrement`` keeps the indexes but lets SQLite reuse
rowids. Every side writes the same ~300-byte events to one stream, in its own fresh file,
WAL and synchronous=FULL, with no hash and no check; the sides take turns a twentieth of N
at a time, as in w3_append.py, and each ratio is the median of per-round ratios.

Run: .venv/bin/python bench/w3_floor.py [--quick] [--rounds N]
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchlib.events import new_events
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.sqlite_peers import DURABLE_PRAGMAS, EventsourcingAppender, insert_batch
from benchlib.stats import median, median_ratio

from diceledger.domain.records import NewEvent

COLUMNS = (
    "event_id VARCHAR(36) NOT NULL, stream_id VARCHAR(200) NOT NULL,"
    " stream_version INTEGER NOT NULL, event_type VARCHAR(100) NOT NULL,"
    " schema_version INTEGER NOT NULL, data JSON NOT NULL, meta JSON NOT NULL,"
    " recorded_at DATETIME NOT NULL, prev_hash VARCHAR(64) NOT NULL, hash VARCHAR(64) NOT NULL"
)
LAYOUTS = {
    "ours": "position INTEGER PRIMARY KEY AUTOINCREMENT, {columns},"
    " UNIQUE (stream_id, stream_version), UNIQUE (event_id)",
    "no_event_id_index": "position INTEGER PRIMARY KEY AUTOINCREMENT, {columns},"
    " UNIQUE (stream_id, stream_version)",
    "no_autoincrement": "position INTEGER PRIMARY KEY, {columns},"
    " UNIQUE (stream_id, stream_version), UNIQUE (event_id)",
}
RECORDED_AT = "2026-11-30 10:00:00.000000"
BATCH = 1_000
CHUNKS = 20


class LayoutAppender:
    """Plain inserts into one layout of the events table, one transaction per batch."""

    def __init__(self, path: str, layout: str) -> None:
        self.connection = sqlite3.connect(path, isolation_level=None)
        for pragma in DURABLE_PRAGMAS:
            self.connection.execute(pragma)
        self.connection.execute(f"CREATE TABLE events ({layout.format(columns=COLUMNS)})")

    def append(self, stream_id: str, events: Sequence[NewEvent], expected_version: int) -> None:
        insert_batch(self.connection, stream_id, events, expected_version, RECORDED_AT)

    def close(self) -> None:
        self.connection.close()


def run_round(events: Sequence[NewEvent]) -> dict[str, float]:
    """Every layout and eventsourcing on fresh files, taking turns; events per second."""
    chunk = max(BATCH, len(events) // CHUNKS // BATCH * BATCH)
    with tempfile.TemporaryDirectory(prefix="diceledger-bench-w3-floor-") as folder:
        sides: dict[str, LayoutAppender | EventsourcingAppender] = {
            name: LayoutAppender(str(Path(folder) / f"{name}.sqlite"), layout)
            for name, layout in LAYOUTS.items()
        }
        sides["eventsourcing"] = EventsourcingAppender(str(Path(folder) / "es.sqlite"))
        seconds = dict.fromkeys(sides, 0.0)
        try:
            for turn, chunk_start in enumerate(range(0, len(events), chunk)):
                names = list(sides)
                for name in names[turn % len(names) :] + names[: turn % len(names)]:
                    began = time.perf_counter()
                    for start in range(chunk_start, min(chunk_start + chunk, len(events)), BATCH):
                        sides[name].append("s", events[start : start + BATCH], start)
                    seconds[name] += time.perf_counter() - began
        finally:
            for side in sides.values():
                side.close()
    return {name: len(events) / spent for name, spent in seconds.items()}


def main() -> None:
    options = parse_options(__doc__.splitlines()[0])
    machine = describe()
    n = 20_000 if options.quick else 200_000
    rounds = options.rounds or (1 if options.quick else 3)
    events = new_events(n)
    rates: dict[str, list[float]] = {}
    for round_number in range(1, rounds + 1):
        for name, rate in run_round(events).items():
            rates.setdefault(name, []).append(rate)
        progress(f"w3 floor round {round_number}: " + ", ".join(
            f"{name} {values[-1]:.0f}/s" for name, values in rates.items()
        ))  # fmt: skip
    emit(
        "w3_floor",
        options.quick,
        machine=machine,
        n=n,
        batch=BATCH,
        rounds=rounds,
        layouts={
            name: {
                "events_per_s": round(median(values)),
                "ratio_vs_ours": median_ratio(values, rates["ours"]),
                "ratio_vs_eventsourcing": median_ratio(values, rates["eventsourcing"]),
            }
            for name, values in rates.items()
        },
    )


if __name__ == "__main__":
    main()

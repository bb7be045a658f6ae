"""W5: PostgreSQL appends from 1, 2 and 4 writer processes while a reader catches up.

Each writer is its own process with its own engine and appends one ~300-byte event per
transaction, either each to its own session or all to one shared session (reloading the
version and retrying on a conflict). Meanwhile a reader process follows ``read_all`` from
where it last stopped. Per scenario: events/s, the p50/p99 latency of one successful
append, conflicts, and whether the reader saw every event in position order. Rounds are
repeated; figures are medians, and the speed-up is against one writer in the same round.

Run: .venv/bin/python bench/w5_postgres.py [--quick] [--rounds N] [--profile]
Needs PostgreSQL (DICELEDGER_BENCH_PG, default host=127.0.0.1 user=postgres); it creates
and drops its own database.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import time
import uuid
from typing import Any

import psycopg
from benchlib.events import dice_rolled_data, new_event
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.postgres import server_version, temporary_database
from benchlib.profiling import print_profile
from benchlib.stats import median, median_ratio, percentile

from diceledger.domain.errors import ConcurrencyError
from diceledger.infra.db import make_engine
from diceledger.infra.store.sql import SqlEventStore

WRITER_COUNTS = (1, 2, 4)
TARGETS = ("own_sessions", "one_session")
READER_POLL_S = 0.01


def writer(url: str, stream: str, shared: bool, start: Any, seconds: float, results: Any) -> None:
    """Append one event per transaction until time is up; report counts and latencies."""
    store = SqlEventStore(make_engine(url))
    number, conflicts, latencies = 0, 0, []
    version = store.current_version(stream)
    start.wait()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        if shared:
            version = store.current_version(stream)  # load, as a service does
        event = new_event(number)
        began = time.perf_counter()
        try:
            store.append(stream, [event], version)
        except ConcurrencyError:
            conflicts += 1
            continue
        latencies.append(time.perf_counter() - began)
        version += 1
        number += 1
    results.put({"appended": number, "conflicts": conflicts, "latencies": latencies})


def reader(url: str, after: int, start: Any, stop: Any, results: Any) -> None:
    """Catch up on read_all while writers write; check order; report what was seen."""
    store = SqlEventStore(make_engine(url))
    seen, last, in_order, lags = 0, after, True, []
    start.wait()
    while True:
        finishing = stop.is_set()  # read once more after the writers stop
        for record in store.read_all(last):
            in_order = in_order and record.position > last
            last = record.position
            seen += 1
        lags.append(store.head_position() - last)
        if finishing:
            break
        time.sleep(READER_POLL_S)
    results.put({"seen": seen, "in_order": in_order, "max_lag": max(lags), "last": last})


def scenario(url: str, writers: int, target: str, seconds: float, tag: str) -> dict[str, Any]:
    """Run one scenario: ``writers`` processes on their own sessions or one shared one."""
    context = mp.get_context("spawn")
    start, stop = context.Event(), context.Event()
    results, reader_results = context.Queue(), context.Queue()
    shared = target == "one_session"
    after = SqlEventStore(make_engine(url)).head_position()
    procs = [
        context.Process(
            target=writer,
            args=(
                url,
                f"w5-{tag}-shared" if shared else f"w5-{tag}-{index}",
                shared,
                start,
                seconds,
                results,
            ),
        )
        for index in range(writers)
    ]
    watcher = context.Process(target=reader, args=(url, after, start, stop, reader_results))
    for process in [*procs, watcher]:
        process.start()
    time.sleep(2.0)  # let every process import and connect before the clock starts
    start.set()
    outcomes = [results.get() for _ in procs]
    stop.set()
    seen = reader_results.get()
    for process in [*procs, watcher]:
        process.join()
    latencies = sorted(x for outcome in outcomes for x in outcome["latencies"])
    appended = sum(outcome["appended"] for outcome in outcomes)
    return {
        "events_per_s": appended / seconds,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "conflicts": sum(outcome["conflicts"] for outcome in outcomes),
        "appended": appended,
        "reader_saw_all": seen["seen"] == appended,
        "reader_in_order": seen["in_order"],
        "reader_max_lag_events": seen["max_lag"],
    }


def raw_psycopg(url: str, seconds: float) -> dict[str, Any]:
    """Time the baseline: one plain INSERT + COMMIT per event through psycopg, one writer.

    The rows go to a scratch copy of the events table (same columns and indexes, no
    triggers), so the figure is what the server and its fsync allow a single writer,
    without diceledger's lock, version check, idempotency lookup and hash chain.
    """
    conninfo = url.replace("postgresql+psycopg://", "postgresql://")
    latencies = []
    with psycopg.connect(conninfo) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS raw_appends (LIKE events INCLUDING ALL)")
        connection.commit()
        stream, version = f"raw-{uuid.uuid4()}", 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            version += 1
            data = json.dumps(dice_rolled_data(version))
            began = time.perf_counter()
            connection.execute(
                "INSERT INTO raw_appends (event_id, stream_id, stream_version, event_type,"
                " schema_version, data, meta, recorded_at, prev_hash, hash)"
                " VALUES (%s, %s, %s, 'DiceRolled', 1, %s, '{}', now(), '', '')",
                (str(uuid.uuid4()), stream, version, data),
            )
            connection.commit()
            latencies.append(time.perf_counter() - began)
    latencies.sort()
    return {
        "events_per_s": len(latencies) / seconds,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
    }


def summarise(runs: list[dict[str, Any]], baseline: list[float]) -> dict[str, Any]:
    """Reduce the rounds of one scenario to medians, speed-up and the reader's verdict."""
    rates = [run["events_per_s"] for run in runs]
    return {
        "events_per_s": round(median(rates)),
        "speedup_vs_1_writer": median_ratio(rates, baseline),
        "p50_ms": round(median([run["p50_ms"] for run in runs]), 2),
        "p99_ms": round(median([run["p99_ms"] for run in runs]), 2),
        "conflicts": round(median([run["conflicts"] for run in runs])),
        "reader_saw_all_in_order": all(r["reader_saw_all"] and r["reader_in_order"] for r in runs),
        "reader_max_lag_events": max(run["reader_max_lag_events"] for run in runs),
    }


def main() -> None:
    """Run every scenario for several rounds on a fresh database; print one JSON line."""
    options = parse_options(__doc__.splitlines()[0])
    machine = describe()  # at the start: the code measured, not the code at the end
    seconds = 2.0 if options.quick else 8.0
    rounds = options.rounds or (1 if options.quick else 3)
    runs: dict[str, list[dict[str, Any]]] = {}
    raw: list[dict[str, Any]] = []
    with temporary_database("w5") as url:
        for round_number in range(1, rounds + 1):
            raw.append(raw_psycopg(url, seconds))
            progress(f"w5 round {round_number} raw psycopg: {raw[-1]['events_per_s']:.0f}/s")
            for target in TARGETS:
                for writers in WRITER_COUNTS:
                    key = f"{target}_{writers}_writers"
                    result = scenario(url, writers, target, seconds, f"{key}-{round_number}")
                    runs.setdefault(key, []).append(result)
                    progress(f"w5 round {round_number} {key}: {result['events_per_s']:.0f}/s")
        if options.profile:
            store = SqlEventStore(make_engine(url))
            print_profile(
                "w5 one writer, 500 appends",
                lambda: [store.append("w5-profile", [new_event(i)], i) for i in range(500)],
            )
    figures = {}
    for target in TARGETS:
        baseline = [run["events_per_s"] for run in runs[f"{target}_1_writers"]]
        for writers in WRITER_COUNTS:
            key = f"{target}_{writers}_writers"
            figures[key] = summarise(runs[key], baseline)
    raw_rates = [run["events_per_s"] for run in raw]
    ours_rates = [run["events_per_s"] for run in runs["own_sessions_1_writers"]]
    baseline = {
        "raw_psycopg_1_writer_events_per_s": round(median(raw_rates)),
        "raw_p50_ms": round(median([run["p50_ms"] for run in raw]), 2),
        "raw_p99_ms": round(median([run["p99_ms"] for run in raw]), 2),
        "diceledger_1_writer_vs_raw": median_ratio(ours_rates, raw_rates),
    }
    emit(
        "w5_postgres",
        options.quick,
        machine={**machine, "postgresql": server_version()},
        seconds_per_scenario=seconds,
        rounds=rounds,
        event_data_bytes=300,
        baseline=baseline,
        scenarios=figures,
    )


if __name__ == "__main__":
    main()

"""W5: PostgreSQL appends from 1 to 8 writer processes while a reader follows the log.

Each writer is its own process with its own engine and appends one ~300-byte event per
transaction, either each to its own session (1, 2, 4 and 8 writers) or all to one shared
session (1, 2 and 4; reloading the version and retrying on a conflict), or all to one
session while holding that session's lock (``infra.store.session_lock.hold_session``, the lock
``CheckpointLedger.append_signed`` takes), reading the version under it. Then the own
sessions again with every append's transaction held open 2 ms after its insert (a trigger
that sleeps; think of a slow disk's commit), once as they run now and once with every
append first taking one transaction-scoped advisory lock in that trigger, as every append
did before migration 0011: what the old global lock cost when a commit is slow, which a
CPU-bound run on two busy cores hides. Meanwhile a reader
process follows ``read_all`` from where it last stopped. Per scenario: events/s, the
p50/p99 latency of one successful append, conflicts, whether the reader saw every event
exactly once and each session in version order, and the reader's lag (from an event's
``recorded_at``, taken just before its insert, to the reader holding it).

The baseline runs in the same rounds: N processes (1, 2, 4, 8) each doing a plain
psycopg INSERT + COMMIT of the same row into a scratch copy of the events table (same
columns and indexes, no triggers, no reader). Rounds are repeated; figures are medians,
and each ratio is the median of per-round ratios.

Run: .venv/bin/python bench/w5_postgres.py [--quick] [--rounds N] [--profile]
Needs PostgreSQL (DICELEDGER_BENCH_PG, default host=127.0.0.1 user=postgres); it creates
and drops its own database.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from benchlib.events import dice_rolled_data, new_event
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.postgres import server_version, temporary_database
from benchlib.profiling import print_profile
from benchlib.stats import median, median_ratio, percentile

from diceledger.domain.errors import ConcurrencyError
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.session_lock import hold_session
from diceledger.infra.store.sql import SqlEventStore

OWN_SESSIONS = (1, 2, 4, 8)
ONE_SESSION = (1, 2, 4)
SCENARIOS = (
    [("own_sessions", n) for n in OWN_SESSIONS]
    + [("one_session", n) for n in ONE_SESSION]
    + [("one_session_locked", n) for n in ONE_SESSION]
    + [("held_commit", n) for n in OWN_SESSIONS]
    + [("held_commit_one_global_lock", n) for n in OWN_SESSIONS]
)
HOLD_S = 0.002
OLD_APPEND_LOCK = 0x6469_6365_6C65_6467  # the key every append took before migration 0011
HOLD = f"""
CREATE OR REPLACE FUNCTION w5_hold() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_ARGV[0] = 'one_lock' THEN
        PERFORM pg_advisory_xact_lock({OLD_APPEND_LOCK});
    END IF;
    PERFORM pg_sleep({HOLD_S});
    RETURN NULL;
END
$$;
CREATE TRIGGER w5_hold AFTER INSERT ON events
FOR EACH STATEMENT EXECUTE FUNCTION w5_hold('{{mode}}');
"""
READER_POLL_S = 0.01
START_S = 2.0  # every process imports and connects before the clock starts


def writer(url: str, stream: str, target: str, start: Any, seconds: float, results: Any) -> None:
    """Append one event per transaction until time is up; report counts and latencies."""
    engine = make_engine(url)
    store = SqlEventStore(engine)
    number, conflicts, latencies = 0, 0, []
    version = store.current_version(stream)
    start.wait()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        event = new_event(number)
        began = time.perf_counter()
        try:
            if target == "one_session_locked":
                with hold_session(engine, stream):  # the version read under the lock is current
                    store.append(stream, [event], store.current_version(stream))
            else:
                if target == "one_session":
                    version = store.current_version(stream)  # load, as a service does
                store.append(stream, [event], version)
        except ConcurrencyError:
            conflicts += 1
            continue
        latencies.append(time.perf_counter() - began)
        version += 1
        number += 1
    results.put({"appended": number, "conflicts": conflicts, "latencies": latencies})


def reader(url: str, prefix: str, after: int, start: Any, stop: Any, results: Any) -> None:
    """Follow read_all while writers write; check exactly-once and per-session order."""
    store = SqlEventStore(make_engine(url))
    seen: set[str] = set()
    versions: dict[str, int] = {}
    repeated, out_of_order, lags = 0, 0, []
    last = after
    start.wait()
    while True:
        finishing = stop.is_set()  # read once more after the writers stop
        for record in store.read_all(last):
            last = record.position
            if not record.stream_id.startswith(prefix):
                continue  # an earlier scenario's event (the read order is not by position)
            lags.append(datetime.now(UTC) - record.recorded_at)
            repeated += record.event_id in seen
            seen.add(record.event_id)
            out_of_order += record.stream_version != versions.get(record.stream_id, 0) + 1
            versions[record.stream_id] = record.stream_version
        if finishing:
            break
        time.sleep(READER_POLL_S)
    delays = sorted(lag.total_seconds() * 1000 for lag in lags)
    results.put(
        {
            "seen": len(seen),
            "repeated": repeated,
            "out_of_order": out_of_order,
            "lag_p50_ms": percentile(delays, 0.50),
            "lag_p99_ms": percentile(delays, 0.99),
            "lag_max_ms": delays[-1] if delays else float("nan"),
        }
    )


def scenario(url: str, writers: int, target: str, seconds: float, tag: str) -> dict[str, Any]:
    """Run one scenario: ``writers`` processes on their own sessions or one shared one."""
    context = mp.get_context("spawn")
    start, stop = context.Event(), context.Event()
    results, reader_results = context.Queue(), context.Queue()
    shared = target.startswith("one_session")
    after = SqlEventStore(make_engine(url)).head_position()
    procs = [
        context.Process(
            target=writer,
            args=(url, f"w5-{tag}-shared" if shared else f"w5-{tag}-{index}", target)
            + (start, seconds, results),
        )
        for index in range(writers)
    ]
    watcher = context.Process(
        target=reader, args=(url, f"w5-{tag}-", after, start, stop, reader_results)
    )
    for process in [*procs, watcher]:
        process.start()
    time.sleep(START_S)
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
        "reader_exactly_once_in_version_order": (
            seen["seen"] == appended and seen["repeated"] == 0 and seen["out_of_order"] == 0
        ),
        "reader_lag_p50_ms": seen["lag_p50_ms"],
        "reader_lag_p99_ms": seen["lag_p99_ms"],
        "reader_lag_max_ms": seen["lag_max_ms"],
    }


def raw_writer(conninfo: str, start: Any, seconds: float, results: Any) -> None:
    """Insert and commit one row at a time through psycopg alone, until time is up."""
    latencies = []
    with psycopg.connect(conninfo) as connection:
        stream, version = f"raw-{uuid.uuid4()}", 0
        start.wait()
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
    results.put(latencies)


def raw_psycopg(url: str, writers: int, seconds: float) -> dict[str, Any]:
    """Time the baseline: ``writers`` processes doing plain INSERT + COMMIT, one row each.

    The rows go to a scratch copy of the events table (same columns and indexes, no
    triggers), so the figure is what the server, its fsync and the machine allow, without
    diceledger's version check, idempotency lookup, hash chain and SQLAlchemy.
    """
    conninfo = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(conninfo) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS raw_appends (LIKE events INCLUDING ALL)")
        connection.commit()
    context = mp.get_context("spawn")
    start, results = context.Event(), context.Queue()
    procs = [
        context.Process(target=raw_writer, args=(conninfo, start, seconds, results))
        for _ in range(writers)
    ]
    for process in procs:
        process.start()
    time.sleep(START_S)
    start.set()
    latencies = sorted(x for _ in procs for x in results.get())
    for process in procs:
        process.join()
    return {
        "events_per_s": len(latencies) / seconds,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
    }


@contextmanager
def held(url: str, target: str) -> Iterator[None]:
    """Hold every append's transaction open a while during a held_commit scenario."""
    if not target.startswith("held_commit"):
        yield
        return
    conninfo = url.replace("postgresql+psycopg://", "postgresql://")
    mode = "one_lock" if target.endswith("global_lock") else "parallel"
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute(HOLD.replace("{mode}", mode).encode())
    try:
        yield
    finally:
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute("DROP TRIGGER w5_hold ON events")


def summarise(
    runs: list[dict[str, Any]], one_writer: list[float], raw: list[float]
) -> dict[str, Any]:
    """Reduce the rounds of one scenario to medians, ratios and the reader's verdict."""
    rates = [run["events_per_s"] for run in runs]
    return {
        "events_per_s": round(median(rates)),
        "vs_1_writer": median_ratio(rates, one_writer),
        "vs_plain_insert_same_writers": median_ratio(rates, raw),
        "p50_ms": round(median([run["p50_ms"] for run in runs]), 2),
        "p99_ms": round(median([run["p99_ms"] for run in runs]), 2),
        "conflicts": round(median([run["conflicts"] for run in runs])),
        "reader_exactly_once_in_version_order": all(
            run["reader_exactly_once_in_version_order"] for run in runs
        ),
        "reader_lag_p50_ms": round(median([run["reader_lag_p50_ms"] for run in runs]), 1),
        "reader_lag_p99_ms": round(median([run["reader_lag_p99_ms"] for run in runs]), 1),
        "reader_lag_max_ms": round(max(run["reader_lag_max_ms"] for run in runs), 1),
    }


def main() -> None:
    """Run every scenario for several rounds on a fresh database; print one JSON line."""
    options = parse_options(__doc__.splitlines()[0])
    machine = describe()  # at the start: the code measured, not the code at the end
    seconds = 2.0 if options.quick else 8.0
    rounds = options.rounds or (1 if options.quick else 3)
    runs: dict[str, list[dict[str, Any]]] = {}
    raw: dict[int, list[dict[str, Any]]] = {}
    with temporary_database("w5") as url:
        for round_number in range(1, rounds + 1):
            for writers in OWN_SESSIONS:
                raw.setdefault(writers, []).append(raw_psycopg(url, writers, seconds))
                rate = raw[writers][-1]["events_per_s"]
                progress(f"w5 round {round_number} plain INSERT, {writers} writers: {rate:.0f}/s")
            for target, writers in SCENARIOS:
                key = f"{target}_{writers}_writers"
                with held(url, target):
                    result = scenario(url, writers, target, seconds, f"{key}-{round_number}")
                runs.setdefault(key, []).append(result)
                progress(f"w5 round {round_number} {key}: {result['events_per_s']:.0f}/s")
        if options.profile:
            store = SqlEventStore(make_engine(url))
            print_profile(
                "w5 one writer, 500 appends",
                lambda: [store.append("w5-profile", [new_event(i)], i) for i in range(500)],
            )
    raw_rates = {n: [run["events_per_s"] for run in raw[n]] for n in OWN_SESSIONS}
    figures = {}
    for target, writers in SCENARIOS:
        key = f"{target}_{writers}_writers"
        one_writer = [run["events_per_s"] for run in runs[f"{target}_1_writers"]]
        figures[key] = summarise(runs[key], one_writer, raw_rates[writers])
    for writers in OWN_SESSIONS:
        parallel = [run["events_per_s"] for run in runs[f"held_commit_{writers}_writers"]]
        serial = [
            run["events_per_s"] for run in runs[f"held_commit_one_global_lock_{writers}_writers"]
        ]
        figures[f"held_commit_{writers}_writers"]["vs_one_global_lock"] = median_ratio(
            parallel, serial
        )
    baseline = {
        f"{writers}_writers": {
            "events_per_s": round(median(raw_rates[writers])),
            "vs_1_writer": median_ratio(raw_rates[writers], raw_rates[1]),
            "p50_ms": round(median([run["p50_ms"] for run in raw[writers]]), 2),
            "p99_ms": round(median([run["p99_ms"] for run in raw[writers]]), 2),
        }
        for writers in OWN_SESSIONS
    }
    emit(
        "w5_postgres",
        options.quick,
        machine={**machine, "postgresql": server_version()},
        seconds_per_scenario=seconds,
        rounds=rounds,
        event_data_bytes=300,
        plain_insert=baseline,
        scenarios=figures,
    )


if __name__ == "__main__":
    main()

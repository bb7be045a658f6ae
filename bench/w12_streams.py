"""W12: a roll's way to 100 live streams, and what 1,000 open streams cost a worker.

Fan-out: one session, its GM and four players who joined by invite, each holding 20 of 100
streams open (`GET .../events`); the GM rolls public checks, a pause between rolls. For
every roll and every stream: the time from the roll's 201 reaching its client to its
CheckResolved reaching the stream. On SQLite with one worker, and on PostgreSQL with two
(streams of the worker that did not take the roll hear of it by LISTEN/NOTIFY).

Open streams: 200 sessions of 5 streams each (1,000) on one worker (SQLite), heartbeat
every HEARTBEAT seconds: the worker's resident memory before the streams open and once all
have caught up, and its CPU over a quiet window with them open against the same window
with none (the heartbeats' cost).

With ``--baseline DIR`` (a checkout of another commit with its own .venv, e.g. a detached
worktree of main) every measurement also runs that commit's server, alternating with this
one's in every round, so both meet the same machine load; ratios are ours / baseline.

Run: .venv/bin/python bench/w12_streams.py [--quick] [--rounds N] [--baseline DIR]
Needs PostgreSQL (DICELEDGER_BENCH_PG) for the two-worker fan-out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from benchlib.http_load import Connection, Subscriber, subscribe
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.postgres import temporary_database
from benchlib.processes import tree_cpu_seconds
from benchlib.stats import median, median_ratio, percentile
from w7_http import CHECK, Server, free_port, open_session, running
from w10_evening import seat_table

OURS = Path(sys.executable).parent  # this checkout's venv bin/
STREAMS = 100
OPEN_SESSIONS, OPEN_PER_SESSION = 200, 5  # 1,000 open streams
HEARTBEAT = 5.0  # seconds: shorter than the default 15, so that a window holds two
PAUSE = 0.1  # between the fan-out's rolls


def serve(bin_dir: Path, url: str, workers: int, folder: Path, heartbeat: float) -> Any:
    """Run ``bin_dir``'s diceledger server on ``url`` until the block ends."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DICELEDGER_")}
    env |= {
        "XDG_DATA_HOME": str(folder / "data"),
        "DICELEDGER_ROLLS_PER_MINUTE": str(10**9),  # the limit is not what is measured
        "DICELEDGER_STREAMS_PER_TOKEN": str(10**6),
        "DICELEDGER_HEARTBEAT_SECONDS": str(heartbeat),
    }
    command = [str(bin_dir / "diceledger"), "--db", url, "serve", "--port", str(port)]
    command += ["--workers", str(workers)]
    log = folder / f"serve-{port}.log"
    server: AbstractContextManager[Server] = running(command, env, port, log, workers)
    return server


async def fan_out(port: int, rolls: int) -> dict[str, float]:
    """Hold STREAMS streams of one table open while its GM rolls; time each arrival."""
    connection = await Connection.open(port)
    session_id, tokens = await seat_table(connection, 0)
    path = f"/api/v1/sessions/{session_id}/events"
    streams = [await subscribe(port, path, tokens[n % len(tokens)]) for n in range(STREAMS)]
    await asyncio.sleep(1.0)  # every stream has caught up with the session's start
    # A new connection: the server closes one left idle for 5 s while the streams opened.
    await connection.close()
    connection = await Connection.open(port)
    answered: dict[int, float] = {}
    for _ in range(rolls):
        status, body = await connection.post(
            f"/api/v1/sessions/{session_id}/rolls", CHECK, tokens[0], str(uuid.uuid4())
        )
        if status != 201:
            raise RuntimeError(f"a roll answered {status}: {body[:200]!r}")
        answered[json.loads(body)["roll_id"]] = time.perf_counter()
        await asyncio.sleep(PAUSE)
    await arrived(streams, rolls)
    await connection.close()
    delays = sorted(s.arrivals[r] - answered[r] for s in streams for r in s.arrivals)
    return {
        "delivered": len(delays),
        "expected": STREAMS * rolls,
        "p50_ms": round(percentile(delays, 0.50) * 1000, 2),
        "p99_ms": round(percentile(delays, 0.99) * 1000, 2),
        "max_ms": round(delays[-1] * 1000, 2),
    }


async def arrived(streams: list[Subscriber], rolls: int) -> None:
    """Wait (30 s at most) for every stream to receive every roll, then close them."""
    deadline = time.perf_counter() + 30
    while time.perf_counter() < deadline and any(len(s.arrivals) < rolls for s in streams):
        await asyncio.sleep(0.05)
    for stream in streams:
        if stream.task is not None:
            stream.task.cancel()
    await asyncio.sleep(0.2)


def rss_kib(pid: int) -> int:
    """Return the resident memory of ``pid`` (KiB), from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def held_open(server: Server, window: float) -> dict[str, float]:
    """Open 1,000 streams on ``server``; its memory and heartbeat CPU with and without."""
    sessions = [open_session(server.port, f"W12 {n}") for n in range(OPEN_SESSIONS)]
    await asyncio.sleep(1.0)
    idle_cpu = await cpu_over(server.pid, window)
    before = rss_kib(server.pid)
    streams = [
        await subscribe(server.port, f"/api/v1/sessions/{session_id}/events", token)
        for session_id, token in sessions
        for _ in range(OPEN_PER_SESSION)
    ]
    await asyncio.sleep(2 * HEARTBEAT)  # every stream has caught up and beaten once
    open_cpu = await cpu_over(server.pid, window)
    after = rss_kib(server.pid)
    await arrived(streams, 0)
    heartbeats = len(streams) * window / HEARTBEAT
    return {
        "streams": len(streams),
        "rss_before_mib": round(before / 1024, 1),
        "rss_after_mib": round(after / 1024, 1),
        "kib_per_stream": round((after - before) / len(streams), 1),
        "cpu_idle_s": round(idle_cpu, 3),
        "cpu_open_s": round(open_cpu, 3),
        "window_s": window,
        "cpu_share_of_a_core": round((open_cpu - idle_cpu) / window, 3),
        "us_per_heartbeat": round((open_cpu - idle_cpu) / heartbeats * 1e6, 1),
    }


async def cpu_over(pid: int, window: float) -> float:
    start = tree_cpu_seconds(pid)
    await asyncio.sleep(window)
    return tree_cpu_seconds(pid) - start


def sides(options: argparse.Namespace) -> dict[str, Path]:
    chosen = {"ours": OURS}
    if options.baseline:
        chosen["baseline"] = Path(options.baseline).resolve() / ".venv" / "bin"
    return chosen


def more_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline", default=None, help="a checkout with its own .venv to run alternately"
    )
    parser.add_argument(
        "--part", choices=("fan-out", "open", "both"), default="both", help="what to measure"
    )


def summary(runs: dict[str, list[dict[str, float]]], keys: tuple[str, ...]) -> dict[str, Any]:
    result: dict[str, Any] = {
        side: {key: round(median([run[key] for run in values]), 2) for key in keys}
        | {"rounds": values}
        for side, values in runs.items()
    }
    if "baseline" in runs:
        result["ours_vs_baseline"] = {
            key: median_ratio(
                [run[key] for run in runs["ours"]], [run[key] for run in runs["baseline"]]
            )
            for key in keys
        }
    return result


def main() -> None:
    options = parse_options(__doc__.splitlines()[0], more_options)
    machine = describe()
    rounds = options.rounds or (1 if options.quick else 3)
    rolls = 10 if options.quick else 30
    window = 2 * HEARTBEAT
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w12-"))
    chosen = sides(options)
    sqlite: dict[str, list[dict[str, float]]] = {side: [] for side in chosen}
    postgres: dict[str, list[dict[str, float]]] = {side: [] for side in chosen}
    held: dict[str, list[dict[str, float]]] = {side: [] for side in chosen}
    for number in range(1, rounds + 1):
        order = list(chosen.items()) if number % 2 else list(reversed(chosen.items()))
        for side, bin_dir in order:
            load = os.getloadavg()[0]
            if options.part != "open":
                url = f"sqlite:///{folder / f'{side}-{number}.sqlite'}"
                with serve(bin_dir, url, 1, folder, 15.0) as one:
                    sqlite[side].append(asyncio.run(fan_out(one.port, rolls)) | {"load": load})
                with temporary_database("w12") as url, serve(bin_dir, url, 2, folder, 15.0) as two:
                    postgres[side].append(asyncio.run(fan_out(two.port, rolls)) | {"load": load})
                progress(
                    f"w12 round {number} {side} fan-out: {sqlite[side][-1]} and, on "
                    f"PostgreSQL with two workers, {postgres[side][-1]} (load {load:.1f})"
                )
            if options.part != "fan-out":
                url = f"sqlite:///{folder / f'{side}-{number}-open.sqlite'}"
                with serve(bin_dir, url, 1, folder, HEARTBEAT) as one:
                    held[side].append(asyncio.run(held_open(one, window)) | {"load": load})
                progress(f"w12 round {number} {side} 1,000 streams: {held[side][-1]}")
    latency = ("p50_ms", "p99_ms", "max_ms", "delivered")
    emit(
        "w12_streams",
        options.quick,
        machine=machine,
        rounds=rounds,
        rolls=rolls,
        sqlite_one_worker_100_streams=summary(sqlite, latency) if options.part != "open" else None,
        postgres_two_workers_100_streams=(
            summary(postgres, latency) if options.part != "open" else None
        ),
        one_worker_1000_open_streams=summary(
            held, ("rss_before_mib", "rss_after_mib", "kib_per_stream", "us_per_heartbeat")
        )
        if options.part != "fan-out"
        else None,
    )


if __name__ == "__main__":
    main()

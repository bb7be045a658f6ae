"""W7: checks rolled over HTTP by 1 to 64 clients, and a roll's way to 100 live streams.

One `diceledger serve` (one worker) per store, SQLite then PostgreSQL. Each of N clients
(1, 8, 32, 64) rolls checks in a session of its own, one request at a time on a keep-alive
connection, each POST with a fresh Idempotency-Key, for a fixed window after a warm-up:
requests/s and the p50/p99 of a POST's latency. The floor, run in the same rounds and
interleaved with ours: the smallest FastAPI endpoint served by uvicorn the same way
(bench/_w7_floor.py) doing one INSERT + COMMIT of a ~300-byte row into a one-table
database of the same kind (SQLite in WAL with synchronous=FULL, or PostgreSQL). Ratios are
ours / floor, the median of per-round ratios.

Then 100 clients hold the live stream of one session open while one client rolls checks
in it, a pause between rolls: for every roll and every stream, the time from the roll's
201 reaching its client to its CheckResolved event reaching the stream (negative when the
stream was first), and from the request being sent. On PostgreSQL the same again with
`--workers 2`, where streams held by the worker that did not take the roll hear of it
through LISTEN/NOTIFY.

With ``--baseline DIR`` (a checkout of another commit with its own .venv, e.g. a detached
worktree of main) that checkout's server takes its turn between ours and the floor in
every round, on a database of its own; ratios against it are ours / baseline, and the
fan-out is left out. ``--stores``, ``--workers`` and ``--clients`` narrow the load part
(the PostgreSQL target of issue 31 is ``--stores postgresql --workers 4 --clients 64``,
the floor then served with as many workers).

Run: .venv/bin/python bench/w7_http.py [--quick] [--rounds N] [--baseline DIR]
        [--stores sqlite postgresql] [--workers N] [--clients N ...]
Needs PostgreSQL (DICELEDGER_BENCH_PG, default host=127.0.0.1 user=postgres) for its
second half; it creates and drops its own databases. Clients and servers share the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchlib.events import dice_rolled_data
from benchlib.http_load import Connection, LoadResult, run_load, subscribe
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.postgres import server_version, temporary_database
from benchlib.processes import tree_cpu_seconds
from benchlib.stats import median, median_ratio, percentile

BENCH_DIR = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
CLIENTS = (1, 8, 32, 64)
SUBSCRIBERS = 100
START_SECONDS = 60.0
STARTED = "Application startup complete"  # uvicorn's line, once per worker
PAUSE = 0.1  # seconds between the rolls of the fan-out
STOP_SECONDS = 20.0
WARM_UP = 2.0  # seconds of load before the window: a server started for its turn warms up
CHECK = json.dumps(
    {"kind": "check", "expression": "1d20+3", "target": 12, "adv": [{"amount": 1}]}
).encode()
FLOOR_ROW = json.dumps({"data": dice_rolled_data(1)}).encode()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class Server:
    """A running server process: its port and its log file."""

    port: int
    log: Path
    pid: int = 0  # the serving process (uvicorn's supervisor when there are workers)

    def streams_per_worker(self) -> list[int]:
        """Count the event streams each worker served, from the access log (once stopped)."""
        served = re.findall(r"\[(\d+)\]: GET \S+/events ", self.log.read_text(errors="replace"))
        return sorted(Counter(served).values())


def up(server: Server, process: subprocess.Popen[bytes], workers: int) -> bool:
    """Tell whether the server answers, with every worker started (a diceledger server)."""
    if process.poll() is not None:
        raise RuntimeError(f"the server exited: {server.log.read_text(errors='replace')[-2000:]}")
    if workers > 1 and server.log.read_text(errors="replace").count(STARTED) < workers:
        return False
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=2):
            return True
    except OSError:
        return False


@contextmanager
def running(
    command: list[str], env: dict[str, str], port: int, log: Path, workers: int = 1
) -> Iterator[Server]:
    """Run a server process until the block ends (SIGTERM, then kill if it hangs)."""
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Server(port, log, process.pid)
    try:
        deadline = time.monotonic() + START_SECONDS
        while not up(server, process, workers):
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_SECONDS)


def server_environment(folder: Path) -> dict[str, str]:
    """Return the environment a diceledger server of the run is started with."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DICELEDGER_")}
    return env | {
        "XDG_DATA_HOME": str(folder / "data"),  # the server's seed key stays in the run
        "DICELEDGER_ROLLS_PER_MINUTE": str(10**9),  # the limit is not what is measured
        "DICELEDGER_STREAMS_PER_TOKEN": str(SUBSCRIBERS * 2),
    }


def diceledger_server(url: str, workers: int, folder: Path, bin_dir: Path = BIN) -> Any:
    port = free_port()
    env = server_environment(folder)
    command = [str(bin_dir / "diceledger"), "--db", url, "serve", "--port", str(port)]
    command += ["--workers", str(workers)]
    return running(command, env, port, folder / f"serve-{port}.log", workers)


def floor_server(target: str, folder: Path, workers: int = 1) -> Any:
    port = free_port()
    env = {**os.environ, "W7_FLOOR_DB": target}
    if workers > 1:  # served as serve runs uvicorn's workers (see bench/w7_workers.py)
        command = [sys.executable, str(BENCH_DIR / "_w7_floor.py"), str(port), str(workers)]
        return running(command, env, port, folder / f"floor-{port}.log")
    command = [sys.executable, "-m", "uvicorn", "--factory", "_w7_floor:create"]
    command += ["--app-dir", str(BENCH_DIR), "--port", str(port), "--log-level", "warning"]
    command += ["--no-access-log"]
    return running(command, env, port, folder / f"floor-{port}.log")


def open_session(port: int, title: str) -> tuple[str, str]:
    """Open a session over HTTP; return its id and the GM's token."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/sessions",
        data=json.dumps({"title": title, "name": "gm"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        opened = json.loads(answer.read())
    return opened["session_id"], opened["gm_token"]


def figures(result: LoadResult, cpu_seconds: float | None = None) -> dict[str, float]:
    """The load's figures; with the server's CPU seconds over it, its CPU per request."""
    found = {
        "requests_per_s": result.per_second,
        "p50_ms": percentile(result.latencies, 0.50) * 1000,
        "p99_ms": percentile(result.latencies, 0.99) * 1000,
        "max_ms": (result.latencies[-1] if result.latencies else 0.0) * 1000,
        "failures": result.failures,
    }
    if cpu_seconds is not None and result.answered:
        found["server_cpu_ms_per_request"] = cpu_seconds / result.answered * 1000
    return found


Request = Callable[[int], tuple[str, bytes, "str | None"]]


def roller(port: int, clients: int) -> Request:
    """Open a session per client on a diceledger server; return who rolls in which."""
    sessions = [open_session(port, f"W7 client {n}") for n in range(clients)]

    def roll(index: int) -> tuple[str, bytes, str | None]:
        session_id, token = sessions[index]
        return f"/api/v1/sessions/{session_id}/rolls", CHECK, token

    return roll


def row(_index: int) -> tuple[str, bytes, str | None]:
    return "/rows", FLOOR_ROW, None


Start = Callable[[], AbstractContextManager[Server]]


def load_rounds(
    starts: dict[str, Start], rounds: int, seconds: float, counts: list[int]
) -> dict[str, Any]:
    """Interleave each server (the floor last) for every client count, ``rounds`` times.

    Each server runs for its turn only: two diceledger servers of four workers at once
    would hold more connections than PostgreSQL's default 100. Each diceledger server's
    sessions are opened on its first turn and rolled in again on the next (same database).
    """
    requests: dict[str, Request] = {"floor": row}
    runs: dict[int, dict[str, list[dict[str, float]]]] = {
        n: {side: [] for side in starts} for n in counts
    }
    for number in range(1, rounds + 1):
        for clients in counts:
            for side, start in starts.items():
                with start() as server:
                    if side not in requests:
                        requests[side] = roller(server.port, max(counts))
                    load = run_load(server.port, clients, seconds, requests[side], WARM_UP)
                    cpu = tree_cpu_seconds(server.pid)
                    result = asyncio.run(load)
                    cpu = tree_cpu_seconds(server.pid) - cpu
                runs[clients][side].append(figures(result, cpu))
            said = ", ".join(
                f"{side} {runs[clients][side][-1]['requests_per_s']:.0f}/s" for side in starts
            )
            progress(f"w7 round {number} {clients} clients: {said}")
    return {str(clients): summarise(sides) for clients, sides in runs.items()}


def summarise(sides: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    def medians(values: list[dict[str, float]]) -> dict[str, float]:
        return {
            "requests_per_s": round(median([v["requests_per_s"] for v in values])),
            "p50_ms": round(median([v["p50_ms"] for v in values]), 2),
            "p99_ms": round(median([v["p99_ms"] for v in values]), 2),
            "max_ms": round(max(v["max_ms"] for v in values), 2),
            "failures": sum(int(v["failures"]) for v in values),
            "server_cpu_ms_per_request": round(
                median([v.get("server_cpu_ms_per_request", 0.0) for v in values]), 2
            ),
        }

    def ratio(values: list[dict[str, float]], base: list[dict[str, float]], key: str) -> float:
        return median_ratio([v[key] for v in values], [v[key] for v in base])

    floor = sides["floor"]
    summary: dict[str, Any] = {side: medians(values) for side, values in sides.items()}
    for side, values in sides.items():
        if side != "floor":
            prefix = "" if side == "diceledger" else f"{side}_"
            summary[f"{prefix}requests_per_s_vs_floor"] = ratio(values, floor, "requests_per_s")
            summary[f"{prefix}p50_vs_floor"] = ratio(values, floor, "p50_ms")
    if "baseline" in sides:
        ours, base = sides["diceledger"], sides["baseline"]
        summary["requests_per_s_vs_baseline"] = ratio(ours, base, "requests_per_s")
        summary["p99_vs_baseline"] = ratio(ours, base, "p99_ms")
    return summary


async def fan_out(port: int, rolls: int, pause: float) -> dict[str, Any]:
    """Hold SUBSCRIBERS streams of one session while one client rolls; time each arrival."""
    session_id, token = open_session(port, "W7 live")
    streams = [
        await subscribe(port, f"/api/v1/sessions/{session_id}/events", token)
        for _ in range(SUBSCRIBERS)
    ]
    await asyncio.sleep(1.0)  # every stream has caught up with the session's start
    writer = await Connection.open(port)
    sent: dict[int, float] = {}
    answered: dict[int, float] = {}
    path = f"/api/v1/sessions/{session_id}/rolls"
    for _ in range(rolls):
        began = time.perf_counter()
        status, body = await writer.post(path, CHECK, token, str(uuid.uuid4()))
        done = time.perf_counter()
        if status != 201:
            raise RuntimeError(f"a roll answered {status}: {body[:200]!r}")
        roll = json.loads(body)["roll_id"]
        sent[roll], answered[roll] = began, done
        await asyncio.sleep(pause)
    deadline = time.perf_counter() + 30
    while time.perf_counter() < deadline and any(len(s.arrivals) < rolls for s in streams):
        await asyncio.sleep(0.05)
    await writer.close()
    for stream in streams:
        if stream.task is not None:
            stream.task.cancel()
    after_answer = sorted(s.arrivals[r] - answered[r] for s in streams for r in s.arrivals)
    after_request = sorted(s.arrivals[r] - sent[r] for s in streams for r in s.arrivals)
    posts = sorted(answered[r] - sent[r] for r in sent)
    return {
        "streams": SUBSCRIBERS,
        "rolls": rolls,
        "delivered": len(after_answer),
        "expected": SUBSCRIBERS * rolls,
        "after_201_p50_ms": round(percentile(after_answer, 0.50) * 1000, 2),
        "after_201_p99_ms": round(percentile(after_answer, 0.99) * 1000, 2),
        "after_request_p50_ms": round(percentile(after_request, 0.50) * 1000, 2),
        "after_request_p99_ms": round(percentile(after_request, 0.99) * 1000, 2),
        "post_p50_ms": round(percentile(posts, 0.50) * 1000, 2),
    }


@dataclass(frozen=True)
class Plan:
    """What one run measures: rounds, their window, the load part's servers and clients."""

    rounds: int
    seconds: float
    rolls: int
    workers: int
    clients: list[int]
    baseline: Path | None  # a checkout's .venv/bin, run between ours and the floor


def one_store(urls: dict[str, str], floor_target: str, folder: Path, plan: Plan) -> dict[str, Any]:
    """Measure the load part (and, with no baseline, the fan-out) on one kind of store."""
    bins = {"diceledger": BIN} | ({"baseline": plan.baseline} if plan.baseline else {})
    starts: dict[str, Start] = {
        side: functools.partial(diceledger_server, urls[side], plan.workers, folder, path)
        for side, path in bins.items()
    }
    starts["floor"] = functools.partial(floor_server, floor_target, folder, plan.workers)
    loads = load_rounds(starts, plan.rounds, plan.seconds, plan.clients)
    results: dict[str, Any] = {"workers": plan.workers, "clients": loads}
    if plan.baseline is None and plan.workers == 1:
        progress("w7 fan-out to 100 streams, one worker")
        with diceledger_server(urls["diceledger"], 1, folder) as ours:
            results["sse_100_streams"] = asyncio.run(fan_out(ours.port, plan.rolls, PAUSE))
    return results


def more_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline", default=None, help="a checkout with its own .venv to run in turn"
    )
    parser.add_argument(
        "--stores", nargs="+", choices=("sqlite", "postgresql"), default=["sqlite", "postgresql"]
    )
    parser.add_argument("--workers", type=int, default=1, help="serve workers, load part")
    parser.add_argument("--clients", type=int, nargs="+", default=list(CLIENTS))


def main() -> None:
    options = parse_options(__doc__.splitlines()[0], more_options)
    machine = describe()
    baseline = Path(options.baseline).resolve() / ".venv" / "bin" if options.baseline else None
    plan = Plan(
        rounds=options.rounds or (1 if options.quick else 3),
        seconds=3.0 if options.quick else 8.0,
        rolls=10 if options.quick else 30,
        workers=options.workers,
        clients=options.clients,
        baseline=baseline,
    )
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w7-"))
    stores: dict[str, Any] = {}
    if "sqlite" in options.stores:
        progress(f"w7 on SQLite ({folder})")
        urls = {side: f"sqlite:///{folder / side}.sqlite" for side in ("diceledger", "baseline")}
        stores["sqlite"] = one_store(urls, str(folder / "floor.sqlite"), folder, plan)
    if "postgresql" in options.stores:
        progress("w7 on PostgreSQL")
        with (
            temporary_database("w7") as url,
            temporary_database("w7base") as base_url,
            temporary_database("w7floor") as floor_url,
        ):
            floor_target = floor_url.replace("postgresql+psycopg://", "postgresql://")
            urls = {"diceledger": url, "baseline": base_url}
            postgres = one_store(urls, floor_target, folder, plan)
            if plan.baseline is None and plan.workers == 1:
                progress("w7 fan-out to 100 streams, two workers")
                with diceledger_server(url, 2, folder) as two:
                    fanned = asyncio.run(fan_out(two.port, plan.rolls, PAUSE))
                postgres["sse_100_streams_two_workers"] = fanned | {
                    "streams_per_worker": two.streams_per_worker()
                }
            stores["postgres"] = postgres
    emit(
        "w7_http",
        options.quick,
        machine={**machine, "postgresql": server_version()},
        seconds_per_run=plan.seconds,
        rounds=plan.rounds,
        client_counts=plan.clients,
        baseline=options.baseline,
        **stores,
    )


if __name__ == "__main__":
    main()

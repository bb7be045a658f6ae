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

Run: .venv/bin/python bench/w7_http.py [--quick] [--rounds N]
Needs PostgreSQL (DICELEDGER_BENCH_PG, default host=127.0.0.1 user=postgres) for its
second half; it creates and drops its own databases. Clients and servers share the machine.
"""

from __future__ import annotations

import asyncio
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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchlib.events import dice_rolled_data
from benchlib.http_load import Connection, LoadResult, run_load, subscribe
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.postgres import server_version, temporary_database
from benchlib.stats import median, median_ratio, percentile

BENCH_DIR = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
CLIENTS = (1, 8, 32, 64)
SUBSCRIBERS = 100
START_SECONDS = 60.0
STARTED = "Application startup complete"  # uvicorn's line, once per worker
PAUSE = 0.1  # seconds between the rolls of the fan-out
STOP_SECONDS = 20.0
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


def diceledger_server(url: str, workers: int, folder: Path) -> Any:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DICELEDGER_")}
    env |= {
        "XDG_DATA_HOME": str(folder / "data"),  # the server's seed key stays in the run
        "DICELEDGER_ROLLS_PER_MINUTE": str(10**9),  # the limit is not what is measured
        "DICELEDGER_STREAMS_PER_TOKEN": str(SUBSCRIBERS * 2),
    }
    command = [str(BIN / "diceledger"), "--db", url, "serve", "--port", str(port)]
    command += ["--workers", str(workers)]
    return running(command, env, port, folder / f"serve-{port}.log", workers)


def floor_server(target: str, folder: Path) -> Any:
    port = free_port()
    env = {**os.environ, "W7_FLOOR_DB": target}
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


def figures(result: LoadResult) -> dict[str, float]:
    return {
        "requests_per_s": result.per_second,
        "p50_ms": percentile(result.latencies, 0.50) * 1000,
        "p99_ms": percentile(result.latencies, 0.99) * 1000,
        "failures": result.failures,
    }


def load_rounds(ours: int, floor: int, rounds: int, seconds: float) -> dict[str, Any]:
    """Interleave ours and the floor for every client count, ``rounds`` times."""
    sessions = [open_session(ours, f"W7 client {n}") for n in range(max(CLIENTS))]

    def roll(index: int) -> tuple[str, bytes, str | None]:
        session_id, token = sessions[index]
        return f"/api/v1/sessions/{session_id}/rolls", CHECK, token

    def row(_index: int) -> tuple[str, bytes, str | None]:
        return "/rows", FLOOR_ROW, None

    runs: dict[int, dict[str, list[dict[str, float]]]] = {
        n: {"diceledger": [], "floor": []} for n in CLIENTS
    }
    for number in range(1, rounds + 1):
        for clients in CLIENTS:
            for side, port, request in (("diceledger", ours, roll), ("floor", floor, row)):
                result = asyncio.run(run_load(port, clients, seconds, request))
                runs[clients][side].append(figures(result))
            mine, base = runs[clients]["diceledger"][-1], runs[clients]["floor"][-1]
            progress(
                f"w7 round {number} {clients} clients: {mine['requests_per_s']:.0f}/s "
                f"against the floor's {base['requests_per_s']:.0f}/s"
            )
    return {str(clients): summarise(sides) for clients, sides in runs.items()}


def summarise(sides: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    def medians(values: list[dict[str, float]]) -> dict[str, float]:
        return {
            "requests_per_s": round(median([v["requests_per_s"] for v in values])),
            "p50_ms": round(median([v["p50_ms"] for v in values]), 2),
            "p99_ms": round(median([v["p99_ms"] for v in values]), 2),
            "failures": sum(int(v["failures"]) for v in values),
        }

    ours, floor = sides["diceledger"], sides["floor"]
    return {
        "diceledger": medians(ours),
        "floor": medians(floor),
        "requests_per_s_vs_floor": median_ratio(
            [v["requests_per_s"] for v in ours], [v["requests_per_s"] for v in floor]
        ),
        "p50_vs_floor": median_ratio([v["p50_ms"] for v in ours], [v["p50_ms"] for v in floor]),
    }


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


def one_store(
    url: str, floor_target: str, folder: Path, rounds: int, seconds: float, rolls: int
) -> dict[str, Any]:
    with diceledger_server(url, 1, folder) as ours, floor_server(floor_target, folder) as floor:
        results = {"clients": load_rounds(ours.port, floor.port, rounds, seconds)}
        progress("w7 fan-out to 100 streams, one worker")
        results["sse_100_streams"] = asyncio.run(fan_out(ours.port, rolls, PAUSE))
    return results


def main() -> None:
    options = parse_options(__doc__.splitlines()[0])
    machine = describe()
    seconds = 3.0 if options.quick else 8.0
    rounds = options.rounds or (1 if options.quick else 3)
    rolls = 10 if options.quick else 30
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w7-"))
    progress(f"w7 on SQLite ({folder})")
    sqlite = one_store(
        f"sqlite:///{folder / 'w7.sqlite'}", str(folder / "floor.sqlite"), folder, rounds,
        seconds, rolls,
    )  # fmt: skip
    progress("w7 on PostgreSQL")
    with temporary_database("w7") as url, temporary_database("w7floor") as floor_url:
        floor_target = floor_url.replace("postgresql+psycopg://", "postgresql://")
        postgres = one_store(url, floor_target, folder, rounds, seconds, rolls)
        progress("w7 fan-out to 100 streams, two workers")
        with diceledger_server(url, 2, folder) as two:
            fanned = asyncio.run(fan_out(two.port, rolls, PAUSE))
        postgres["sse_100_streams_two_workers"] = fanned | {
            "streams_per_worker": two.streams_per_worker()
        }
    emit(
        "w7_http",
        options.quick,
        machine={**machine, "postgresql": server_version()},
        seconds_per_run=seconds,
        rounds=rounds,
        client_counts=list(CLIENTS),
        sqlite=sqlite,
        postgres=postgres,
    )


if __name__ == "__main__":
    main()

"""W10: a busy evening, simulated: many tables of five rolling checks with their pages open.

N tables (sessions) of five members, the GM and four players who joined by invite, each
with their own token. Every member rolls a check (``POST .../rolls``, a fresh
Idempotency-Key) every 10 to 30 seconds, drawn uniformly, waiting for its answer; every
member also holds the table's live stream (``GET .../events``) open, so each table has five
streams. Time is scaled: with ``--time-scale 2`` a member rolls every 5 to 15 s, so a run
of 200 tables offers the roll rate of a 400-table evening (but only 200 tables' streams).
Against ``diceledger serve --workers W`` on PostgreSQL, W = 1, 2, 4, one fresh server per
(tables, workers) pair, on one database the script creates and drops.

Per pair, over the measured window after a warm-up (the longest interval, so every
member has rolled once): rolls/s against the rate offered, p50/p99/max of a roll's
latency, stream delivery (the roll's 201 reaching its member to its CheckResolved event
reaching each of the table's five streams: p50, p99, max, and how many never came), errors
(answers other than 201 and broken connections: must be 0), busy retries (a 503
session-busy is sent again with the same key after its Retry-After, up to five sends, as
the table's page does; the roll's latency runs from its first send), and CPU per roll (the server
process and its workers' CPU time over the window / the rolls answered in it; PostgreSQL's
own processes are not counted). The clients run in this one process on the same machine.

Run: .venv/bin/python bench/w10_evening.py [--quick] [--tables 50 200] [--workers 1 2 4]
     [--time-scale 2] [--seconds 45]
Needs PostgreSQL (DICELEDGER_BENCH_PG, default host=127.0.0.1 user=postgres). Bounded: a
pair runs for its warm-up and window, then waits at most DELIVERY_SECONDS for streams, and
every request has a read timeout; each server is stopped (SIGTERM, then killed) after its
pair.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib.http_load import READ_SECONDS, Connection, Subscriber, subscribe
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.postgres import server_version, temporary_database
from benchlib.processes import tree_cpu_seconds
from benchlib.stats import percentile
from w7_http import CHECK, diceledger_server

from diceledger.infra.store.session_lock import RETRY_AFTER_SECONDS

PLAYERS = 4  # and the GM: five members a table
INTERVAL = (10.0, 30.0)  # seconds between a member's rolls, before scaling
SETUP_CONNECTIONS = 8  # tables opened at once while setting up
DELIVERY_SECONDS = 10.0  # how long the streams may lag once the window has closed
SEED = 10  # the members' intervals, so that runs offer the same load
BUSY_ATTEMPTS = 5  # a roll sent at most this often while its session is busy, as a page does
# uvicorn closes a keep-alive connection idle for 5 s; a member idle longer than this
# opens a new one before rolling, as a browser would (its connect is in the latency).
IDLE_SECONDS = 4.0


@dataclass
class Member:
    """One member of a table: their token, their open stream, the connection they roll on."""

    token: str
    stream: Subscriber
    connection: Connection


@dataclass
class Table:
    """One session and its members; the moment each of its rolls was answered."""

    session_id: str
    members: list[Member]
    answered: dict[int, float] = field(default_factory=dict)


@dataclass
class Tally:
    """What the members saw in the measured window."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    busy_retries: int = 0  # 503 session-busy answers, each sent again as a page would
    error_samples: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what[:200])


async def answer_json(
    connection: Connection, path: str, body: dict[str, Any], token: str | None = None
) -> dict[str, Any]:
    """POST during set-up, where anything but a 201 stops the run."""
    status, answer = await connection.post(path, json.dumps(body).encode(), token)
    if status != 201:
        raise RuntimeError(f"{path} answered {status}: {answer[:200]!r}")
    document: dict[str, Any] = json.loads(answer)
    return document


async def seat_table(connection: Connection, number: int) -> tuple[str, list[str]]:
    """Open a session and have four players join it; return its id and the five tokens."""
    opened = await answer_json(
        connection, "/api/v1/sessions", {"title": f"W10 table {number}", "name": "gm"}
    )
    session_id, gm_token = opened["session_id"], opened["gm_token"]
    tokens = [gm_token]
    for seat in range(1, PLAYERS + 1):
        base = f"/api/v1/sessions/{session_id}"
        invite = await answer_json(connection, f"{base}/invites", {}, gm_token)
        joined = await answer_json(
            connection, f"{base}/join", {"invite_code": invite["invite_code"], "name": f"p{seat}"}
        )
        tokens.append(joined["player_token"])
    return session_id, tokens


async def seat_tables(port: int, count: int) -> list[Table]:
    """Seat ``count`` tables, open every member's stream and rolling connection."""
    seated: dict[int, tuple[str, list[str]]] = {}
    numbers = iter(range(count))

    async def usher() -> None:
        connection = await Connection.open(port)
        try:
            for number in numbers:
                seated[number] = await seat_table(connection, number)
        finally:
            await connection.close()

    await asyncio.gather(*(usher() for _ in range(min(SETUP_CONNECTIONS, count))))
    tables = []
    for number in range(count):
        session_id, tokens = seated[number]
        path = f"/api/v1/sessions/{session_id}/events"
        members = [
            Member(
                token,
                await asyncio.wait_for(subscribe(port, path, token), READ_SECONDS),
                await asyncio.wait_for(Connection.open(port), READ_SECONDS),
            )
            for token in tokens
        ]
        tables.append(Table(session_id, members))
    return tables


async def evening(
    port: int, pid: int, tables: list[Table], scale: float, seconds: float
) -> dict[str, Any]:
    """Let every member roll for the warm-up and the window; return the window's figures."""
    rng = random.Random(SEED)
    low, high = INTERVAL[0] / scale, INTERVAL[1] / scale
    began = time.perf_counter()
    start = began + high
    stop = start + seconds
    tally = Tally()

    async def member(table: Table, seat: Member, first: float) -> None:
        path = f"/api/v1/sessions/{table.session_id}/rolls"
        pause = first
        idle_since = float("-inf")  # the connection opened at seating may have expired
        while time.perf_counter() + pause < stop:
            await asyncio.sleep(pause)
            sent = time.perf_counter()
            try:
                if sent - idle_since > IDLE_SECONDS:
                    await seat.connection.close()
                    seat.connection = await Connection.open(port)
                key = str(uuid.uuid4())
                status, body = await seat.connection.post(path, CHECK, seat.token, key)
                for _ in range(BUSY_ATTEMPTS - 1):
                    if status != 503 or b"session-busy" not in body:
                        break
                    # As the table's page does: the same roll, same key, after Retry-After.
                    tally.busy_retries += 1
                    await asyncio.sleep(RETRY_AFTER_SECONDS)
                    status, body = await seat.connection.post(path, CHECK, seat.token, key)
            except (
                OSError,
                TimeoutError,
                asyncio.IncompleteReadError,
                ValueError,
                IndexError,
            ) as e:
                tally.fail(f"{type(e).__name__}: {e}")
                return  # this member's connection is gone; it counts as an error
            done = idle_since = time.perf_counter()
            if status != 201:
                tally.fail(f"{status}: {body[:200]!r}")
            elif sent >= start and done <= stop:
                tally.latencies.append(done - sent)
                table.answered[json.loads(body)["roll_id"]] = done
            pause = rng.uniform(low, high)

    async def meter() -> tuple[float, float]:
        await asyncio.sleep(start - time.perf_counter())
        before, client_before = tree_cpu_seconds(pid), time.process_time()
        await asyncio.sleep(stop - time.perf_counter())
        return tree_cpu_seconds(pid) - before, time.process_time() - client_before

    members = [
        member(table, seat, rng.uniform(0, high)) for table in tables for seat in table.members
    ]
    metered = asyncio.ensure_future(meter())
    await asyncio.gather(*members)
    server_cpu, client_cpu = await metered
    deadline = time.perf_counter() + DELIVERY_SECONDS
    while time.perf_counter() < deadline and not all_delivered(tables):
        await asyncio.sleep(0.05)
    delays = sorted(
        seat.stream.arrivals[roll] - answered
        for table in tables
        for roll, answered in table.answered.items()
        for seat in table.members
        if roll in seat.stream.arrivals
    )
    rolls = len(tally.latencies)
    latencies = sorted(tally.latencies)
    members_count = sum(len(t.members) for t in tables)
    return {
        "tables": len(tables),
        "members": members_count,
        "streams": members_count,
        "evening_tables_equivalent": round(len(tables) * scale),
        "offered_rolls_per_s": round(members_count * scale * 2 / sum(INTERVAL), 1),
        "rolls": rolls,
        "rolls_per_s": round(rolls / seconds, 1),
        "p50_ms": ms(percentile(latencies, 0.50)),
        "p99_ms": ms(percentile(latencies, 0.99)),
        "max_ms": ms(latencies[-1] if latencies else float("nan")),
        "delivery_p50_ms": ms(percentile(delays, 0.50)),
        "delivery_p99_ms": ms(percentile(delays, 0.99)),
        "delivery_max_ms": ms(delays[-1] if delays else float("nan")),
        "deliveries": len(delays),
        "undelivered": sum(len(t.answered) * len(t.members) for t in tables) - len(delays),
        "errors": tally.errors,
        "busy_retries": tally.busy_retries,
        "error_samples": tally.error_samples,
        "server_cpu_s": round(server_cpu, 2),
        "server_cpu_ms_per_roll": ms(server_cpu / rolls if rolls else float("nan")),
        "client_cpu_s": round(client_cpu, 2),
    }


def all_delivered(tables: list[Table]) -> bool:
    """Tell whether every answered roll has reached every stream of its table."""
    return all(
        roll in seat.stream.arrivals
        for table in tables
        for roll in table.answered
        for seat in table.members
    )


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


async def one_pair(port: int, pid: int, count: int, scale: float, seconds: float) -> dict[str, Any]:
    """Seat ``count`` tables on a running server, play the evening, close everything."""
    tables = await seat_tables(port, count)
    try:
        return await evening(port, pid, tables, scale, seconds)
    finally:
        for table in tables:
            for seat in table.members:
                if seat.stream.task is not None:
                    seat.stream.task.cancel()
                await seat.connection.close()


def more_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, nargs="+", help="table counts (50 200)")
    parser.add_argument("--workers", type=int, nargs="+", help="serve workers (1 2 4)")
    parser.add_argument(
        "--time-scale", type=float, help="how much faster than real members roll (2)"
    )
    parser.add_argument("--seconds", type=float, help="the measured window (45)")


def main() -> None:
    options = parse_options(__doc__.splitlines()[0], more_options)
    quick = options.quick
    table_counts = options.tables or ([5] if quick else [50, 200])
    worker_counts = options.workers or ([1, 2] if quick else [1, 2, 4])
    scale = options.time_scale or (10.0 if quick else 2.0)
    seconds = options.seconds or (6.0 if quick else 45.0)
    if max(table_counts) > 1000 or seconds > 600 or scale <= 0:
        raise SystemExit("w10: at most 1000 tables, a window of 600 s, a positive time scale")
    machine = describe() | {"load_average": [round(x, 2) for x in os.getloadavg()]}
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w10-"))
    results: dict[str, Any] = {}
    with temporary_database("w10") as url:
        for count in table_counts:
            for workers in worker_counts:
                with diceledger_server(url, workers, folder) as server:
                    progress(f"w10 {count} tables, {workers} workers: seating")
                    figures = asyncio.run(one_pair(server.port, server.pid, count, scale, seconds))
                results[f"{count}_tables_{workers}_workers"] = figures
                progress(
                    f"w10 {count} tables, {workers} workers: {figures['rolls_per_s']}/s of "
                    f"{figures['offered_rolls_per_s']} offered, p99 {figures['p99_ms']} ms, "
                    f"delivery p99 {figures['delivery_p99_ms']} ms, errors {figures['errors']}"
                )
    emit(
        "w10_evening",
        quick,
        machine={**machine, "postgresql": server_version()},
        time_scale=scale,
        seconds_per_run=seconds,
        interval_seconds=list(INTERVAL),
        results=results,
    )


if __name__ == "__main__":
    main()

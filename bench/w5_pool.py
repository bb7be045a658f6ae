"""W5 (pool): a serve worker's threads sharing one engine, and what group commit could save.

(a) Connection pool. One process, as one ``diceledger serve`` worker runs its request
handlers: T threads (8 and 32; uvicorn's thread pool has 40) each play checks
(``1d20+5``, advantage 1, target 15) in a session of their own through the session
service (load, decide, append 3-4 events) on one shared engine. Pool settings compared:
SQLAlchemy's default QueuePool (5 connections + 10 overflow, what serve uses), a QueuePool
sized to the threads, and NullPool (a new connection per checkout, i.e. no pooling).
Commands/s and the p50/p99 of one command.

(b) Group commit, its ceiling. Plain psycopg, one connection, 8 rows of ~300 bytes for 8
different sessions: 8 transactions of one row each, against one transaction of 8 rows.
And the same threads as in (a) on the default pool with ``synchronous_commit = off``, so
no commit waits for its WAL flush: the most that batching the commits of independent
appends could win for the service, before paying for the batching itself.

Run: .venv/bin/python bench/w5_pool.py [--quick] [--rounds N]
Needs PostgreSQL (DICELEDGER_BENCH_PG, default host=127.0.0.1 user=postgres); it creates
and drops its own database.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
import sqlalchemy as sa
from benchlib.events import dice_rolled_data
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.postgres import server_version, temporary_database
from benchlib.stats import median, median_ratio, percentile
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from diceledger.domain.dice.request import Target
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import InMemorySeedVault

THREADS = (8, 32)
CHECK = cmd.RequestRoll(
    kind="check", expression="1d20+5", advantage=(Amount(1),), target=Target(15)
)
ROWS_PER_GROUP = 8
NO_COMMIT_WAIT = "?options=-csynchronous_commit%3Doff"


def pools(threads: int) -> dict[str, Callable[[str], Engine]]:
    """Return the engines compared, by name, for ``threads`` threads."""
    return {
        "default_5_plus_10": make_engine,
        f"queue_{threads}": lambda url: engine_with(url, pool_size=threads, max_overflow=0),
        "no_pool": lambda url: engine_with(url, poolclass=NullPool),
        # Not a pool setting: the ceiling of group commit (no commit waits for its flush).
        "default_without_commit_wait": lambda url: make_engine(url + NO_COMMIT_WAIT),
    }


def engine_with(url: str, **pool: Any) -> Engine:
    """Build an engine like infra.store.database.make_engine's, with other pool settings."""
    return sa.create_engine(url, connect_args={"connect_timeout": 5}, **pool)


def play(engine: Engine, threads: int, seconds: float) -> dict[str, Any]:
    """Run ``threads`` threads of check commands, each in its own session, for a while."""
    service = SessionService(SqlEventStore(engine), InMemorySeedVault())
    sessions = []
    for index in range(threads):
        session = service.start(f"pool {index}", "gm").session_id
        service.execute(session, "player", cmd.JoinSession("player"))
        sessions.append(session)
    start = threading.Barrier(threads + 1)
    latencies: list[list[float]] = [[] for _ in sessions]

    def run(index: int) -> None:
        start.wait()
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            began = time.perf_counter()
            service.execute(sessions[index], "player", CHECK)
            latencies[index].append(time.perf_counter() - began)

    workers = [threading.Thread(target=run, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    start.wait()
    for worker in workers:
        worker.join()
    done = sorted(x for each in latencies for x in each)
    return {
        "commands_per_s": len(done) / seconds,
        "p50_ms": percentile(done, 0.50) * 1000,
        "p99_ms": percentile(done, 0.99) * 1000,
    }


def group_commit(url: str, seconds: float) -> dict[str, float]:
    """Rows per second: one commit per row, against one commit per group of rows."""
    conninfo = url.replace("postgresql+psycopg://", "postgresql://")
    insert = (
        "INSERT INTO raw_rows (event_id, stream_id, stream_version, event_type,"
        " schema_version, data, meta, recorded_at, prev_hash, hash)"
        " VALUES (%s, %s, %s, 'DiceRolled', 1, %s, '{}', now(), '', '')"
    )
    rates = {}
    with psycopg.connect(conninfo) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS raw_rows (LIKE events INCLUDING ALL)")
        connection.commit()
        streams = [f"group-{uuid.uuid4()}" for _ in range(ROWS_PER_GROUP)]
        version = 0
        for name, per_commit in (("commit_per_row", 1), ("commit_per_8_rows", ROWS_PER_GROUP)):
            rows, deadline = 0, time.perf_counter() + seconds
            while time.perf_counter() < deadline:
                version += 1
                for index, stream in enumerate(streams):
                    row = (str(uuid.uuid4()), stream, version, json.dumps(dice_rolled_data(rows)))
                    connection.execute(insert, row)
                    rows += 1
                    if (index + 1) % per_commit == 0:
                        connection.commit()
            rates[name] = rows / seconds
    return rates


def main() -> None:
    """Run both parts for several rounds on a fresh database; print one JSON line."""
    options = parse_options(__doc__.splitlines()[0])
    machine = describe()
    seconds = 2.0 if options.quick else 6.0
    rounds = options.rounds or (1 if options.quick else 3)
    runs: dict[str, list[dict[str, Any]]] = {}
    groups: list[dict[str, float]] = []
    with temporary_database("w5pool") as url:
        for round_number in range(1, rounds + 1):
            for threads in THREADS:
                for name, build in pools(threads).items():
                    engine = build(url)
                    try:
                        result = play(engine, threads, seconds)
                    finally:
                        engine.dispose()
                    runs.setdefault(f"{threads}_threads_{name}", []).append(result)
                    rate = result["commands_per_s"]
                    progress(f"w5 pool round {round_number} {threads} threads {name}: {rate:.0f}/s")
            groups.append(group_commit(url, seconds))
            progress(f"w5 pool round {round_number} group commit: {groups[-1]}")
    figures = {}
    for threads in THREADS:
        default = [run["commands_per_s"] for run in runs[f"{threads}_threads_default_5_plus_10"]]
        for name in pools(threads):
            key = f"{threads}_threads_{name}"
            rates = [run["commands_per_s"] for run in runs[key]]
            figures[key] = {
                "commands_per_s": round(median(rates), 1),
                "vs_default_pool": median_ratio(rates, default),
                "p50_ms": round(median([run["p50_ms"] for run in runs[key]]), 1),
                "p99_ms": round(median([run["p99_ms"] for run in runs[key]]), 1),
            }
    per_row = [group["commit_per_row"] for group in groups]
    per_group = [group["commit_per_8_rows"] for group in groups]
    emit(
        "w5_pool",
        options.quick,
        machine={**machine, "postgresql": server_version()},
        seconds_per_run=seconds,
        rounds=rounds,
        pool=figures,
        group_commit={
            "rows_per_s_commit_per_row": round(median(per_row)),
            "rows_per_s_commit_per_8_rows": round(median(per_group)),
            "ratio": median_ratio(per_group, per_row),
        },
    )


if __name__ == "__main__":
    main()

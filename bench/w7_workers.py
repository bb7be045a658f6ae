"""W7 (workers): checks rolled over HTTP on PostgreSQL by 1, 2 and 4 serve workers.

The load of bench/w7_http.py (each client rolls checks in a session of its own, one request
at a time on a keep-alive connection, a fresh Idempotency-Key per POST) against
``diceledger serve --workers N`` on PostgreSQL, N = 1, 2, 4, with 8 and 32 clients. The
floor runs in the same rounds with as many uvicorn workers: the smallest FastAPI endpoint
doing one INSERT + COMMIT (bench/_w7_floor.py). Requests/s, p50/p99 of a POST, the ratio
against one worker and against the floor with the same workers.

Run: .venv/bin/python bench/w7_workers.py [--quick] [--rounds N]
Needs PostgreSQL (DICELEDGER_BENCH_PG, default host=127.0.0.1 user=postgres); it creates
and drops its own databases. Clients and servers share the machine.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchlib.http_load import run_load
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.postgres import server_version, temporary_database
from benchlib.stats import median, median_ratio
from w7_http import (
    BENCH_DIR,
    CHECK,
    FLOOR_ROW,
    diceledger_server,
    figures,
    free_port,
    open_session,
    running,
)

WORKERS = (1, 2, 4)
CLIENTS = (8, 32)


def floor_server(target: str, workers: int, folder: Path) -> Any:
    """Serve bench/_w7_floor.py with ``workers`` uvicorn workers, as serve runs uvicorn."""
    port = free_port()
    env = {**os.environ, "W7_FLOOR_DB": target}
    command = [sys.executable, str(BENCH_DIR / "_w7_floor.py"), str(port), str(workers)]
    return running(command, env, port, folder / f"floor-{port}.log")


def one_round(
    url: str, floor_target: str, folder: Path, seconds: float
) -> dict[str, dict[int, dict[str, dict[str, float]]]]:
    """Run every worker count once, ours and the floor's interleaved per client count."""
    results: dict[str, dict[int, dict[str, dict[str, float]]]] = {}
    for workers in WORKERS:
        with (
            diceledger_server(url, workers, folder) as ours,
            floor_server(floor_target, workers, folder) as floor,
        ):
            sessions = [open_session(ours.port, f"W7w client {n}") for n in range(max(CLIENTS))]

            def roll(index: int) -> tuple[str, bytes, str | None]:
                session_id, token = sessions[index]  # noqa: B023 - used within this pass
                return f"/api/v1/sessions/{session_id}/rolls", CHECK, token

            def row(_index: int) -> tuple[str, bytes, str | None]:
                return "/rows", FLOOR_ROW, None

            for clients in CLIENTS:
                for side, port, request in (
                    ("diceledger", ours.port, roll),
                    ("floor", floor.port, row),
                ):
                    result = asyncio.run(run_load(port, clients, seconds, request))
                    results.setdefault(side, {}).setdefault(workers, {})[str(clients)] = figures(
                        result
                    )
                mine = results["diceledger"][workers][str(clients)]["requests_per_s"]
                base = results["floor"][workers][str(clients)]["requests_per_s"]
                progress(
                    f"w7w {workers} workers {clients} clients: {mine:.0f}/s, floor {base:.0f}/s"
                )
    return results


def summarise(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over rounds; ratios against one worker and the floor, per round."""

    def series(side: str, workers: int, clients: int, key: str) -> list[float]:
        return [float(r[side][workers][str(clients)][key]) for r in rounds]

    out: dict[str, Any] = {}
    for workers in WORKERS:
        for clients in CLIENTS:
            ours = series("diceledger", workers, clients, "requests_per_s")
            floor = series("floor", workers, clients, "requests_per_s")
            out[f"{workers}_workers_{clients}_clients"] = {
                "requests_per_s": round(median(ours)),
                "p50_ms": round(median(series("diceledger", workers, clients, "p50_ms")), 1),
                "p99_ms": round(median(series("diceledger", workers, clients, "p99_ms")), 1),
                "failures": sum(series("diceledger", workers, clients, "failures")),
                "vs_1_worker": median_ratio(
                    ours, series("diceledger", 1, clients, "requests_per_s")
                ),
                "floor_requests_per_s": round(median(floor)),
                "floor_vs_1_worker": median_ratio(
                    floor, series("floor", 1, clients, "requests_per_s")
                ),
                "vs_floor": median_ratio(ours, floor),
            }
    return out


def main() -> None:
    options = parse_options(__doc__.splitlines()[0])
    machine = describe()
    seconds = 3.0 if options.quick else 8.0
    rounds = options.rounds or (1 if options.quick else 3)
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w7w-"))
    done = []
    with temporary_database("w7w") as url, temporary_database("w7wfloor") as floor_url:
        floor_target = floor_url.replace("postgresql+psycopg://", "postgresql://")
        for number in range(1, rounds + 1):
            progress(f"w7w round {number}")
            done.append(one_round(url, floor_target, folder, seconds))
    emit(
        "w7_workers",
        options.quick,
        machine={**machine, "postgresql": server_version()},
        seconds_per_run=seconds,
        rounds=rounds,
        results=summarise(done),
    )


if __name__ == "__main__":
    main()

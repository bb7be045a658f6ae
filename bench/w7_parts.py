"""W7 taken apart: what a roll costs the server, layer by layer, against W7's floor.

One client rolls checks over HTTP, one request at a time (W7 with one client), against four
servers in turn in every round, each with one worker on a SQLite database of its own:

- ``diceledger``: `diceledger serve`, the whole roll;
- ``face_with_key``: the same app with each roll's work replaced by one canned roll
  (bench/_w7_face.py): the middlewares, the token and the session check, the rate limit,
  the body, the answer's JSON, and the Idempotency-Key kept in one transaction;
- ``face``: the same without the key's transaction;
- ``floor``: W7's floor (bench/_w7_floor.py), one INSERT and COMMIT behind FastAPI.

Then, in this process, the roll's own work: deciding a check, sealing its events into the
hash chain (an in-memory store), folding them, the roll's view as JSON, the Merkle nodes its
events complete and the Ed25519 signature of the new checkpoint; no database and no HTTP.
The server's CPU per request is its process's CPU over the window divided by the requests
answered; each layer's cost is the difference between two servers of the same round.

Run: .venv/bin/python bench/w7_parts.py [--quick] [--rounds N]
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import w7_http
from _w7_face import NO_KEY
from benchlib.http_load import run_load
from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.processes import tree_cpu_seconds
from benchlib.stats import median, median_ratio

from diceledger.domain.checkpoint import Checkpoint, origin_for
from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.merkle import fold, grow, root_plan
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount, RollRequested
from diceledger.infra.app.results import RollResult
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.ledger.signing import SigningKey
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.vault.seeds import InMemorySeedVault

BENCH_DIR = Path(__file__).resolve().parent
SIDES = ("diceledger", "face_with_key", "face", "floor")
CHECK = cmd.RequestRoll(RollKind.CHECK, "1d20+3", advantage=(Amount(1),), target=Target(12))
KEY_NAME = "bench.example/w7-parts"

Start = Callable[[], AbstractContextManager[w7_http.Server]]


def face_server(folder: Path, keyed: bool) -> AbstractContextManager[w7_http.Server]:
    port = w7_http.free_port()
    env = w7_http.server_environment(folder) | {
        "DICELEDGER_DB": f"sqlite:///{folder}/face-{port}.sqlite",
        NO_KEY: "0" if keyed else "1",
    }
    command = [sys.executable, str(BENCH_DIR / "_w7_face.py"), str(port)]
    return w7_http.running(command, env, port, folder / f"face-{port}.log", 1)


def served(side: str, start: Start, seconds: float) -> dict[str, float]:
    """Load one server with one client for ``seconds``; its rate and CPU per request.

    A diceledger server's client rolls in a session it opens for the turn.
    """
    with start() as server:
        request = w7_http.row if side == "floor" else w7_http.roller(server.port, 1)
        load = run_load(server.port, 1, seconds, request, w7_http.WARM_UP)
        cpu = tree_cpu_seconds(server.pid)
        result = asyncio.run(load)
        cpu = tree_cpu_seconds(server.pid) - cpu
    if result.failures or not result.answered:
        raise RuntimeError(f"{result.failures} of the requests failed")
    return {"requests_per_s": result.per_second, "cpu_ms": cpu / result.answered * 1000}


def own_work(rolls: int) -> Callable[[], float]:
    """Return a measurement of one roll's own work in CPU milliseconds, on a warm session."""
    service = SessionService(InMemoryEventStore(), InMemorySeedVault())
    session_id = service.start("w7 parts", "gm").session_id
    key = SigningKey.generate(KEY_NAME)
    size, edge = 0, list[bytes]()  # the session's Merkle tree: its size and compact range

    def one() -> None:
        nonlocal size, edge
        with service.locked(session_id):
            outcome = service.execute(session_id, "gm", CHECK)
            roll_id = next(e.roll_id for _, e in outcome.appended if isinstance(e, RollRequested))
            json.dumps(RollResult.of(outcome.state, roll_id, "gm", ()).view)
        fold(edge)  # the ledger folds the kept edge to check it against the signed root
        leaves = [bytes.fromhex(record.hash) for record, _ in outcome.appended]
        nodes = dict(zip(root_plan(size), edge, strict=True)) | dict(grow(size, edge, leaves))
        size += len(leaves)
        edge = [nodes[node] for node in root_plan(size)]
        key.sign_checkpoint(Checkpoint(origin_for(KEY_NAME, session_id), size, fold(edge)))

    def measured() -> float:
        started = time.process_time()
        for _ in range(rolls):
            one()
        return (time.process_time() - started) / rolls * 1000

    measured()  # warm-up: the engine's caches, the first seed
    return measured


def rounds_of(starts: dict[str, Start], rounds: int, seconds: float, rolls: int) -> dict[str, Any]:
    runs: dict[str, list[dict[str, float]]] = {side: [] for side in (*SIDES, "own_work")}
    measure_own = own_work(rolls)
    for number in range(1, rounds + 1):
        for side in SIDES:
            runs[side].append(served(side, starts[side], seconds))
        runs["own_work"].append({"cpu_ms": measure_own()})
        said = ", ".join(
            f"{side} {runs[side][-1]['cpu_ms']:.2f} ms" for side in (*SIDES, "own_work")
        )
        progress(f"w7 parts round {number}, CPU per request: {said}")
    summary: dict[str, Any] = {}
    for side, values in runs.items():
        summary[side] = {name: round(median([v[name] for v in values]), 3) for name in values[0]}
    floor = runs["floor"]
    for side in ("diceledger", "face_with_key", "face"):
        summary[side]["requests_per_s_vs_floor"] = median_ratio(
            [v["requests_per_s"] for v in runs[side]], [v["requests_per_s"] for v in floor]
        )
    for side in (*SIDES[:-1], "own_work"):
        summary[side]["cpu_vs_floor"] = median_ratio(
            [v["cpu_ms"] for v in runs[side]], [v["cpu_ms"] for v in floor]
        )
    return summary


def starts(folder: Path) -> dict[str, Start]:
    url = f"sqlite:///{folder / 'diceledger.sqlite'}"
    return {
        "diceledger": functools.partial(w7_http.diceledger_server, url, 1, folder),
        "face_with_key": functools.partial(face_server, folder, True),
        "face": functools.partial(face_server, folder, False),
        "floor": functools.partial(w7_http.floor_server, str(folder / "floor.sqlite"), folder),
    }


def main() -> None:
    options = parse_options(__doc__.splitlines()[0])
    rounds = options.rounds or (1 if options.quick else 3)
    seconds = 2.0 if options.quick else 6.0
    rolls = 200 if options.quick else 1000
    folder = Path(tempfile.mkdtemp(prefix="diceledger-w7-parts-"))
    progress(f"w7 parts on SQLite ({folder})")
    summary = rounds_of(starts(folder), rounds, seconds, rolls)
    emit(
        "w7_parts",
        options.quick,
        machine=describe(),
        rounds=rounds,
        seconds_per_run=seconds,
        own_work_rolls=rolls,
        **summary,
    )


if __name__ == "__main__":
    main()

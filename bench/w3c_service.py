"""W3(c): whole `check` commands per second through the session service, on SQLite.

Each command is what `diceledger check` does after start-up: catch the session's state up
from the store, decide (draw seeded dice, resolve under the rules), append ~4 events with
the hash chain in one durable transaction. Two figures: a long-lived service (the state
stays cached between commands) and a cold service per command (the state replayed from
the whole stream, as a fresh CLI process does), each on one session.

Run: .venv/bin/python bench/w3c_service.py [--quick] [--rounds N]
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchlib.machine import describe
from benchlib.options import emit, parse_options, progress
from benchlib.stats import median

from domain.session import commands as cmd
from domain.session.events import Amount
from infra.bootstrap import bootstrap
from infra.sessions import SessionService

CHECK = cmd.RequestRoll("check", "1d20+5", advantage=(Amount(1),), target=15)


def run(url: str, n: int, cold: bool) -> tuple[float, int]:
    services = bootstrap(url)
    session = services.sessions.start("W3c", "gm").session_id
    services.sessions.execute(session, "ann", cmd.JoinSession("ann"))
    before = services.store.head_position()
    start = time.perf_counter()
    for _ in range(n):
        sessions = SessionService(services.store, services.vault) if cold else services.sessions
        sessions.execute(session, "ann", CHECK)
    elapsed = time.perf_counter() - start
    return n / elapsed, services.store.head_position() - before


def main() -> None:
    options = parse_options(__doc__.splitlines()[0])
    n = 100 if options.quick else 1000
    rounds = options.rounds or (1 if options.quick else 3)
    warm, cold, events = [], [], 0
    for number in range(rounds):
        progress(f"round {number + 1}/{rounds}: {n} checks, warm and cold")
        folder = Path(tempfile.mkdtemp(prefix="diceledger-w3c-"))
        rate, events = run(f"sqlite:///{folder / 'warm.sqlite'}", n, cold=False)
        warm.append(rate)
        cold.append(run(f"sqlite:///{folder / 'cold.sqlite'}", n, cold=True)[0])
    emit(
        "w3c_service",
        options.quick,
        machine=describe(),
        checks=n,
        events_per_check=round(events / n, 2),
        checks_per_second_long_lived=round(median(warm), 1),
        checks_per_second_cold=round(median(cold), 1),
    )


if __name__ == "__main__":
    main()

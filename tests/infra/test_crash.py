"""A writer killed with SIGKILL mid-append loses no acknowledged event and breaks nothing."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from diceledger.domain.hashchain import verify_chain
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.sql import SqlEventStore

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
KILLS = 10


def _run_and_kill(url: str, delay: float) -> list[str]:
    """Start an appending child, SIGKILL it after ``delay`` s; return the ids it reported."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.infra.workers", url, "crash-stream"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.stdout is not None
    # Wait for the first acknowledged append so that the kill lands while it is writing.
    reported = [child.stdout.readline().strip()]
    try:
        child.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
    remaining, errors = child.communicate()
    assert child.returncode == -signal.SIGKILL, errors
    # A line cut short by the kill was never a complete acknowledgement.
    return reported + [line for line in remaining.split("\n")[:-1] if len(line) == 36]


def test_sigkill_at_random_moments_keeps_every_acknowledged_append(sqlite_url: str) -> None:
    # SQLite only: there the store itself owns durability (WAL, synchronous=FULL).
    url = sqlite_url
    rng = random.Random()
    acknowledged: list[str] = []
    for _ in range(KILLS):
        acknowledged += _run_and_kill(url, delay=rng.uniform(0.0, 0.3))
    engine = make_engine(url)
    try:
        store = SqlEventStore(engine)
        recorded = list(store.read_stream("crash-stream"))
        assert verify_chain(recorded) is None
        assert set(acknowledged) <= {record.event_id for record in recorded}
        assert len(acknowledged) >= KILLS
    finally:
        engine.dispose()

"""The busy-evening benchmark (bench/w10_evening.py) runs end to end at one table.

Its figures are timings and are not asserted; what is asserted holds however fast the
machine is: the run ends by itself, no roll failed, and every roll answered in the window
reached all five of its table's streams.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_SECONDS = 90  # the run takes under half a minute; a hang fails, never blocks


def test_one_table_plays_an_evening_without_losing_a_roll(postgres_database: str) -> None:
    # postgres_database only checks that the server is up (or skips); the script makes and
    # drops a database of its own.
    command = [sys.executable, str(ROOT / "bench" / "w10_evening.py"), "--tables", "1"]
    command += ["--workers", "1", "--time-scale", "20", "--seconds", "3"]
    # A group of its own, so that a hung run is killed with the servers it started.
    run = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = run.communicate(timeout=TIMEOUT_SECONDS)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
    assert run.returncode == 0, err[-2000:]
    line = json.loads(out.strip().splitlines()[-1])
    pair = line["results"]["1_tables_1_workers"]
    assert (pair["tables"], pair["members"], pair["streams"]) == (1, 5, 5)
    assert pair["errors"] == 0, pair["error_samples"]
    assert pair["undelivered"] == 0
    assert pair["deliveries"] == 5 * pair["rolls"]

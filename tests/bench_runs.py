"""Run a benchmark script to its end, as the tests of bench/ do, and read its one JSON line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from diceledger.domain.json import JsonObject

ROOT = Path(__file__).resolve().parents[1]


def bench_line(script: str, arguments: list[str], timeout_seconds: float) -> JsonObject:
    """Run ``bench/<script>`` with ``arguments``; return the JSON line it printed last.

    The script runs in a process group of its own, so a run past ``timeout_seconds`` is
    killed with the servers it started: a hang fails the test, never blocks the suite. A
    run that exits other than 0 fails the test with the end of what it wrote on stderr.
    """
    run = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / script), *arguments],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = run.communicate(timeout=timeout_seconds)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
    assert run.returncode == 0, err[-2000:]
    line = json.loads(out.strip().splitlines()[-1])
    assert isinstance(line, dict), line
    return line

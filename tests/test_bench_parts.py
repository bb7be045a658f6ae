"""W7 taken apart (bench/w7_parts.py) runs end to end, its four servers answering every request.

Its figures are timings and are not asserted. What is asserted holds however fast the
machine is: the run ends by itself, no request to any of its servers failed (the script
stops on the first failure), and every server and the in-process part measured something.
The face servers replace the roll with a canned one (bench/_w7_face.py); a change to the
application's roll or to the Idempotency-Key's run that they no longer fit fails here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_SECONDS = 120  # the quick run takes about half a minute; a hang fails, never blocks


def test_the_parts_of_a_roll_are_each_served_without_a_failure() -> None:
    command = [sys.executable, str(ROOT / "bench" / "w7_parts.py"), "--quick"]
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
    for side in ("diceledger", "face_with_key", "face", "floor"):
        assert line[side]["requests_per_s"] > 0 and line[side]["cpu_ms"] > 0, line
    assert line["own_work"]["cpu_ms"] > 0, line

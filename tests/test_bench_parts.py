"""W7 taken apart (bench/w7_parts.py) runs end to end, its four servers answering every request.

Its figures are timings and are not asserted. What is asserted holds however fast the
machine is: the run ends by itself, no request to any of its servers failed (the script
stops on the first failure), and every server and the in-process part measured something.
The face servers replace the roll with a canned one (bench/_w7_face.py); a change to the
application's roll or to the Idempotency-Key's run that they no longer fit fails here.
"""

from __future__ import annotations

from tests.bench_runs import bench_line
from tests.documents import number_at

TIMEOUT_SECONDS = 120  # the quick run takes about half a minute


def test_the_parts_of_a_roll_are_each_served_without_a_failure() -> None:
    line = bench_line("w7_parts.py", ["--quick"], TIMEOUT_SECONDS)
    for side in ("diceledger", "face_with_key", "face", "floor"):
        assert number_at(line, side, "requests_per_s") > 0, line
        assert number_at(line, side, "cpu_ms") > 0, line
    assert number_at(line, "own_work", "cpu_ms") > 0, line

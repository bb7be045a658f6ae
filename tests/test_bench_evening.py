"""The busy-evening benchmark (bench/w10_evening.py) runs end to end at one table.

Its figures are timings and are not asserted; what is asserted holds however fast the
machine is: the run ends by itself, no roll failed, and every roll answered in the window
reached all five of its table's streams.
"""

from __future__ import annotations

from tests.bench_runs import bench_line
from tests.documents import int_at, object_at

TIMEOUT_SECONDS = 90  # the run takes under half a minute


def test_one_table_plays_an_evening_without_losing_a_roll(postgres_database: str) -> None:
    # postgres_database only checks that the server is up (or skips); the script makes and
    # drops a database of its own.
    arguments = ["--tables", "1", "--workers", "1", "--time-scale", "20", "--seconds", "3"]
    line = bench_line("w10_evening.py", arguments, TIMEOUT_SECONDS)
    pair = object_at(line, "results", "1_tables_1_workers")
    assert (pair["tables"], pair["members"], pair["streams"]) == (1, 5, 5)
    assert pair["errors"] == 0, pair["error_samples"]
    assert pair["undelivered"] == 0
    assert int_at(pair, "deliveries") == 5 * int_at(pair, "rolls")

"""Run a callable under cProfile and print where its time went, on stderr."""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
from collections.abc import Callable


def print_profile(title: str, work: Callable[[], object], top: int = 15) -> None:
    """Profile ``work`` once and print its ``top`` functions by own time, then cumulative."""
    profiler = cProfile.Profile()
    profiler.runcall(work)
    for order in ("tottime", "cumulative"):
        buffer = io.StringIO()
        pstats.Stats(profiler, stream=buffer).strip_dirs().sort_stats(order).print_stats(top)
        print(f"== profile: {title}, by {order} ==", file=sys.stderr)
        print(_table_only(buffer.getvalue()), file=sys.stderr, flush=True)


def _table_only(report: str) -> str:
    # pstats prints a preamble (file name, call totals, ordering); keep the totals line
    # and the table.
    lines = report.splitlines()
    keep = [line for line in lines if "function calls" in line]
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
    return "\n".join(keep + lines[start:])

"""The options every workload script shares, and the one JSON line each prints."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

# bench/run sets this so that scripts it runs (including ones it does not know) can see
# that a quick pass was asked for.
QUICK_ENV = "DICELEDGER_BENCH_QUICK"


def parse_options(
    description: str, extend: Callable[[argparse.ArgumentParser], None] | None = None
) -> argparse.Namespace:
    """Parse --quick (smaller N, fewer rounds), --rounds and --profile for a workload."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick",
        action="store_true",
        default=os.environ.get(QUICK_ENV) == "1",
        help="smaller N and fewer rounds: a try-out in about a minute, not a measurement",
    )
    parser.add_argument(
        "--rounds", type=int, default=None, help="repeat each measurement this many times"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also profile diceledger's side once and print the top functions on stderr",
    )
    if extend is not None:
        extend(parser)
    return parser.parse_args()


def emit(workload: str, quick: bool, **figures: Any) -> None:
    """Print the workload's single JSON line on stdout."""
    line = {"workload": workload, "quick": quick, **figures}
    print(json.dumps(line, sort_keys=False), flush=True)


def progress(message: str) -> None:
    """Tell the person watching what is running; stderr, so stdout stays JSON only."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)

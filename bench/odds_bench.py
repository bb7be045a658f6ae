"""Time exact odds against icepool on the same cases, cold and warm, and check they agree.

Run from the repository root:  .venv/bin/python bench/odds_bench.py
Cold: each library computes the case once in a fresh process (imports not timed); the
median of three such processes is reported.
Warm: the same call repeated in one process; the median time is reported.
Prints one JSON line per case; ``cold_ratio`` is icepool's time over diceledger's.
With DICELEDGER_BENCH_QUICK=1 (bench/run --quick) the warm and million-call loops shrink.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from diceledger.domain.dice.notation import parse  # noqa: E402
from diceledger.domain.dice.request import CheckDie, Modifier, RollSpec  # noqa: E402

QUICK = os.environ.get("DICELEDGER_BENCH_QUICK") == "1"
WARM_REPEATS = 20 if QUICK else 200
CHECKS = 100_000 if QUICK else 1_000_000
COLD_RUNS = 1 if QUICK else 3  # fresh processes per library and case; the median is kept

# name -> (expression, check die or None, eased, target or None for a whole distribution)
CASES: dict[str, tuple[str, CheckDie | None, int, int | None]] = {
    "d20+5 adv 1 vs 15": ("1d20+5", CheckDie(advantage=(Modifier(1),)), 0, 15),
    "4d6 exploding": ("4d6", None, 0, None),
    "8d6+3 exploding": ("8d6+3", None, 0, None),
    "median d20+2 adv 1 vs 12": ("1d20+2", CheckDie(median=True, advantage=(Modifier(1),)), 0, 12),
    "d20+3 score -2 (3 dice) vs 12": ("1d20+3", CheckDie(disadvantage=(Modifier(2),)), 0, 12),
    "1d12 exploding": ("1d12", None, 0, None),
    "(2d6+3)/2 eased 1": ("(2d6+3)/2", None, 1, None),
}


def spec_of(name: str) -> RollSpec:
    text, check, eased, _ = CASES[name]
    return RollSpec(parse(text), check=check, eased=(Modifier(eased),))


def diceledger_call(name: str) -> Callable[[], object]:
    from diceledger.domain.odds import distribution, success_probability

    spec, target = spec_of(name), CASES[name][3]
    if target is not None:
        return lambda: success_probability(spec, target)
    return lambda: dict(distribution(spec))


def icepool_call(name: str) -> Callable[[], object]:
    from tests.domain.odds import icepool_model

    spec, target = spec_of(name), CASES[name][3]
    if target is not None:
        return lambda: Fraction(icepool_model.total(spec).probability(">=", target))
    return lambda: icepool_model.probabilities(icepool_model.total(spec))


CALLS = {"diceledger": diceledger_call, "icepool": icepool_call}


def cold(library: str, name: str) -> float:
    """Time the first computation of a case in fresh processes; return the median."""
    times = []
    for _ in range(COLD_RUNS):
        output = subprocess.run(
            [sys.executable, __file__, "--cold", library, name],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        times.append(float(output))
    return statistics.median(times)


def warm(call: Callable[[], object]) -> tuple[float, object]:
    result = call()
    times = []
    for _ in range(WARM_REPEATS):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    import icepool

    versions = {"python": sys.version.split()[0], "icepool": icepool.__version__}
    print(json.dumps({"workload": "odds_bench", **versions}))
    for name in CASES:
        ours_cold, theirs_cold = cold("diceledger", name), cold("icepool", name)
        ours_warm, ours = warm(diceledger_call(name))
        theirs_warm, theirs = warm(icepool_call(name))
        line = {
            "workload": "odds_bench",
            "case": name,
            "diceledger_cold_s": round(ours_cold, 6),
            "icepool_cold_s": round(theirs_cold, 6),
            "cold_ratio": round(theirs_cold / ours_cold, 1),
            "diceledger_warm_s": round(ours_warm, 7),
            "icepool_warm_s": round(theirs_warm, 7),
            "warm_ratio": round(theirs_warm / ours_warm, 1),
            "equal": ours == theirs,
        }
        print(json.dumps(line))
    print(json.dumps(million_checks()))


def million_checks() -> dict[str, object]:
    """Time the success chances of many checks, as a statistics projection asks them."""
    from diceledger.domain.odds import clear_caches, success_probability

    clear_caches()
    specs = [spec_of(name) for name, case in CASES.items() if case[3] is not None]
    # Each check parsed afresh would hit the same cache; here equal objects repeat.
    start = time.perf_counter()
    for i in range(CHECKS):
        success_probability(specs[i % len(specs)], 8 + i % 13)
    elapsed = time.perf_counter() - start
    return {
        "workload": "odds_bench",
        "case": f"{CHECKS} success_probability calls",
        "seconds": round(elapsed, 3),
    }


if __name__ == "__main__":
    if sys.argv[1:2] == ["--cold"]:
        call = CALLS[sys.argv[2]](sys.argv[3])
        start = time.perf_counter()
        call()
        print(time.perf_counter() - start)
    else:
        main()

"""W4: rebuild the statistics projection from position 0, and answer `stats` from it.

For each store given (made by bench/make_store.py), in fresh child processes:
- rebuild: ``StatisticsProjection.rebuild`` over the whole log, timed, with the resident
  memory sampled after every batch (flat memory shows as equal samples) and the peak RSS;
- stats: ``diceledger stats --format csv`` as a user runs it (a new process, projection
  already current), timed end to end;
- baseline: raw ``sqlite3`` + ``json.loads`` folding per-player counters (rolls by kind,
  checks won, face histograms, explosions, rerolls, disputes) in one pass. It skips what
  diceledger adds on top: decoding into domain events, session state, exact odds (luck),
  blind-roll scopes and voided-roll exclusion, and the persisted, checkpointed counters.

Prints one JSON line. Run:
  .venv/bin/python bench/make_store.py --events 100000 --db sqlite:////tmp/mid.db
  .venv/bin/python bench/make_store.py --events 1000000 --db sqlite:////tmp/big.db
  .venv/bin/python bench/w4_replay.py --db sqlite:////tmp/mid.db --db sqlite:////tmp/big.db
"""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from benchlib.machine import describe  # noqa: E402
from benchlib.options import emit, parse_options, progress  # noqa: E402

MB = 1024 * 1024


def peak_rss_mb() -> float:
    """Return this process's peak resident memory in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds(who: int = resource.RUSAGE_SELF) -> float:
    """Return user + system CPU time so far (of this process, or of its waited children)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def current_rss_mb() -> float:
    """Return this process's resident memory now, in MB."""
    import psutil

    return psutil.Process().memory_info().rss / MB


def child_rebuild(url: str) -> dict[str, Any]:
    """Rebuild the statistics projection; return time, event count and memory samples."""
    from infra.db import make_engine, upgrade
    from infra.projections.statistics import StatisticsProjection
    from infra.store.sql import SqlEventStore

    upgrade(url)
    engine = make_engine(url)
    projection = StatisticsProjection(engine, SqlEventStore(engine))
    samples: list[float] = []
    done = 0

    def sample(count: int) -> None:
        nonlocal done
        done += count
        samples.append(current_rss_mb())

    started = time.perf_counter()
    folded = projection.rebuild(sample)
    seconds = time.perf_counter() - started
    picks = [
        samples[min(int(len(samples) * f), len(samples) - 1)] for f in (0.1, 0.25, 0.5, 0.75, 1.0)
    ]
    return {
        "events": folded,
        "seconds": round(seconds, 2),
        "events_per_s": round(folded / seconds),
        "cpu_seconds": round(cpu_seconds(), 2),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "rss_mb_at_10_25_50_75_100_pct": [round(s, 1) for s in picks],
    }


def child_baseline(url: str) -> dict[str, Any]:
    """Fold per-player counters straight from the events table with sqlite3 and json.loads."""
    path = url.removeprefix("sqlite:///")
    connection = sqlite3.connect(path)
    counters: Counter[tuple[str, str, str]] = Counter()
    requests: dict[tuple[str, int], tuple[str, str | None, str]] = {}
    started = time.perf_counter()
    cursor = connection.execute("SELECT stream_id, event_type, data FROM events ORDER BY position")
    events = 0
    while rows := cursor.fetchmany(5000):
        for stream, kind, text in rows:
            events += 1
            data = json.loads(text)
            if kind == "RollRequested":
                opponent = data["opponent"]["name"] if data["opponent"] else None
                requests[(stream, data["roll_id"])] = (data["on_behalf_of"], opponent, data["kind"])
            elif kind in ("DiceRolled", "DieExploded", "DieRerolled"):
                owner, opponent, _ = requests[(stream, data["roll_id"])]
                player = opponent if data.get("side") == 1 else owner
                for die in data["dice"] if kind == "DiceRolled" else [data["die"]]:
                    counters[(stream, player, f"face.{die['sides']}.{die['face']}")] += 1
                if kind == "DieExploded":
                    counters[(stream, player, "explosions")] += 1
                if kind == "DieRerolled":
                    counters[(stream, player, "rerolls")] += 1
            elif kind in ("RollResolved", "CheckResolved"):
                owner, opponent, roll_kind = requests[(stream, data["roll_id"])]
                counters[(stream, owner, f"rolls.{roll_kind}")] += 1
                if kind == "CheckResolved":
                    counters[(stream, owner, "won")] += bool(
                        data["success"] if data["winner"] is None else data["winner"] == owner
                    )
            elif kind == "RollDisputed":
                counters[(stream, data["by"], "disputes")] += 1
    seconds = time.perf_counter() - started
    return {
        "events": events,
        "seconds": round(seconds, 2),
        "events_per_s": round(events / seconds),
        "cpu_seconds": round(cpu_seconds(), 2),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "counters": len(counters),
    }


def run_child(kind: str, url: str) -> dict[str, Any]:
    """Run one measurement in a fresh process so that its peak memory is its own."""
    output = subprocess.run(
        [sys.executable, __file__, "--child", kind, url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, Any] = json.loads(output.splitlines()[-1])
    return result


def time_stats_csv(url: str) -> dict[str, Any]:
    """Time `diceledger stats --format csv` in a new process; the projection is current."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "stats.csv"
        command = [str(ROOT / ".venv/bin/diceledger"), "--db", url, "--as", "gm", "stats"]
        cpu_before, started = cpu_seconds(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(
            [*command, "--format", "csv", "-o", str(target)], check=True, capture_output=True
        )
        seconds = time.perf_counter() - started
        cpu = cpu_seconds(resource.RUSAGE_CHILDREN) - cpu_before
        rows = sum(1 for _ in target.open()) - 1
    return {"seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2), "csv_rows": rows}


def measure(url: str) -> dict[str, Any]:
    """Return the rebuild, stats and baseline figures of one store."""
    progress(f"rebuild {url}")
    rebuild = run_child("rebuild", url)
    progress(f"stats --format csv {url}")
    stats = time_stats_csv(url)
    progress(f"baseline {url}")
    baseline = run_child("baseline", url)
    return {
        "db": url,
        "events": rebuild["events"],
        "rebuild": rebuild,
        "stats_csv": stats,
        "baseline": baseline,
        "rebuild_vs_baseline_cpu": round(rebuild["cpu_seconds"] / baseline["cpu_seconds"], 1),
    }


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        measure_child = {"rebuild": child_rebuild, "baseline": child_baseline}[sys.argv[2]]
        print(json.dumps(measure_child(sys.argv[3])))
        return
    options = parse_options(
        __doc__.splitlines()[0],
        lambda parser: parser.add_argument(
            "--db", action="append", required=True, help="a store made by bench/make_store.py"
        ),
    )
    results = [measure(url) for url in options.db]
    emit("w4_replay", options.quick, machine=describe(), cpus=os.cpu_count(), results=results)


if __name__ == "__main__":
    main()

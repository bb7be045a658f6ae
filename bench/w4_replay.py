"""W4: rebuild the statistics projection from position 0, and answer `stats` from it.

For each store given (made by bench/make_store.py), in fresh child processes:
- rebuild: ``StatisticsProjection.rebuild`` over the whole log, timed, with the resident
  memory sampled after every batch (flat memory shows as equal samples) and the peak RSS;
- stats: ``diceledger stats --format csv`` as a user runs it (a new process, projection
  already current), timed end to end;
- baseline: raw ``sqlite3`` + ``json.loads`` folding per-player counters (rolls by kind,
  checks won, face histograms, explosions, rerolls, disputes) in one pass. It skips what
  diceledger adds on top: decoding into domain events, session state, exact odds (luck),
  blind-roll scopes and voided-roll exclusion, and the persisted, checkpointed counters;
- floor: the rebuild's read alone (``read_all_data``, the stored text), and its read and
  decode into the fold's lean records, with no fold: what the rebuild cannot go below;
- eventsourcing: the same events copied once (untimed) into the ``eventsourcing``
  library's SQLite application recorder, then read back in order through its
  ``NotificationLogReader`` (sections of 1,000) and folded by the baseline's own fold.

Without ``--db`` it makes (once, then reuses) stores of 100,000 and 1,000,000 events with
bench/make_store.py in the temporary directory; ``--quick`` makes 10,000 and 100,000.

Prints one JSON line; ``--profile`` also profiles a rebuild of the first store (stderr).
Run:
  .venv/bin/python bench/w4_replay.py [--quick] [--profile]
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
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
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
    """Return user + system CPU time so far (of this process, or of its waited children).

    Timed sections take the difference, so the interpreter's start-up is not counted.
    """
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def current_rss_mb() -> float:
    """Return this process's resident memory now, in MB (Linux: /proc/self/statm)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        resident_pages = int(statm.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / MB


def child_rebuild(url: str) -> dict[str, Any]:
    """Rebuild the statistics projection; return time, event count and memory samples."""
    from diceledger.infra.projections.statistics import StatisticsProjection
    from diceledger.infra.store.database import make_engine, upgrade
    from diceledger.infra.store.sql import SqlEventStore

    upgrade(url)
    engine = make_engine(url)
    projection = StatisticsProjection(engine, SqlEventStore(engine))
    samples: list[float] = []
    done = 0

    def sample(count: int) -> None:
        nonlocal done
        done += count
        samples.append(current_rss_mb())

    figures = timed(lambda: projection.rebuild(sample))
    picks = [
        samples[min(int(len(samples) * f), len(samples) - 1)] for f in (0.1, 0.25, 0.5, 0.75, 1.0)
    ]
    return {**figures, "rss_mb_at_10_25_50_75_100_pct": [round(s, 1) for s in picks]}


def child_floor(url: str, decoded: bool) -> dict[str, Any]:
    """Time the rebuild's read alone (and its decode): what no fold can go below."""
    from diceledger.infra.codec.stat_records import stat_record
    from diceledger.infra.store.database import make_engine
    from diceledger.infra.store.sql import SqlEventStore

    store = SqlEventStore(make_engine(url))

    def read() -> int:
        events = 0
        for item in store.read_all_data():
            if decoded:
                stat_record(item.event_type, item.schema_version, item.data)
            events += 1
        return events

    return timed(read)


def child_profile(url: str) -> dict[str, Any]:
    """Rebuild once under cProfile; print the top functions on stderr."""
    from benchlib.profiling import print_profile

    from diceledger.infra.projections.statistics import StatisticsProjection
    from diceledger.infra.store.database import make_engine, upgrade
    from diceledger.infra.store.sql import SqlEventStore

    upgrade(url)
    engine = make_engine(url)
    projection = StatisticsProjection(engine, SqlEventStore(engine))
    print_profile(f"w4 rebuild {url}", projection.rebuild, top=25)
    return {"profiled": url}


def timed(work: Callable[[], int]) -> dict[str, Any]:
    """Run ``work``, which returns how many events it read; return what every side reports."""
    cpu_before, started = cpu_seconds(), time.perf_counter()
    events = work()
    seconds = time.perf_counter() - started
    cpu = cpu_seconds() - cpu_before
    return {
        "events": events,
        "seconds": round(seconds, 2),
        "events_per_s": round(events / seconds),
        "cpu_seconds": round(cpu, 2),
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }


Row = tuple[str, str, str]  # stream, event type, JSON data


def fold_counters(rows: Iterable[Row]) -> tuple[int, int]:
    """Fold per-player counters from events in log order; return (events, counters)."""
    counters: Counter[tuple[str, str, str]] = Counter()
    requests: dict[tuple[str, int], tuple[str, str | None, str]] = {}
    events = 0
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
    return events, len(counters)


def timed_fold(rows: Iterable[Row]) -> dict[str, Any]:
    """Fold ``rows`` and return the figures every peer reports, with its counter count."""
    counters = 0

    def fold() -> int:
        nonlocal counters
        events, counters = fold_counters(rows)
        return events

    return {**timed(fold), "counters": counters}


def sqlite_rows(path: str) -> Iterator[Row]:
    """Yield every event of a diceledger SQLite store in log order, in pages of 5,000."""
    connection = sqlite3.connect(path)
    cursor = connection.execute("SELECT stream_id, event_type, data FROM events ORDER BY position")
    while rows := cursor.fetchmany(5000):
        yield from rows
    connection.close()


def child_baseline(url: str) -> dict[str, Any]:
    """Fold per-player counters straight from the events table with sqlite3 and json.loads."""
    return timed_fold(sqlite_rows(url.removeprefix("sqlite:///")))


def eventsourcing_copy_path(url: str) -> Path:
    return Path(url.removeprefix("sqlite:///") + ".eventsourcing.sqlite")


def child_eventsourcing_fill(url: str) -> dict[str, Any]:
    """Copy the store's events into eventsourcing's SQLite recorder, unless done before."""
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

    target = eventsourcing_copy_path(url)
    source = url.removeprefix("sqlite:///")
    (wanted,) = sqlite3.connect(source).execute("SELECT count(*) FROM events").fetchone()
    if target.exists():
        (have,) = sqlite3.connect(target).execute("SELECT count(*) FROM stored_events").fetchone()
        if have == wanted:
            return {"events": have, "reused": True}
        target.unlink()
    datastore = SQLiteDatastore(db_name=str(target))
    recorder = SQLiteApplicationRecorder(datastore)
    recorder.create_table()
    started = time.perf_counter()
    connection = sqlite3.connect(source)
    cursor = connection.execute(
        "SELECT stream_id, stream_version, event_type, data FROM events ORDER BY position"
    )
    while rows := cursor.fetchmany(10_000):
        recorder.insert_events(
            [
                StoredEvent(
                    originator_id=uuid.uuid5(uuid.NAMESPACE_URL, stream),
                    originator_version=version,
                    topic=kind,
                    state=text.encode(),
                )
                for stream, version, kind, text in rows
            ]
        )
    datastore.close()
    return {"events": wanted, "reused": False, "seconds": round(time.perf_counter() - started, 1)}


def child_eventsourcing(url: str) -> dict[str, Any]:
    """Fold the same counters from events read through eventsourcing's notification reader."""
    from eventsourcing.application import LocalNotificationLog
    from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore
    from eventsourcing.system import NotificationLogReader

    datastore = SQLiteDatastore(db_name=str(eventsourcing_copy_path(url)))
    log = LocalNotificationLog(SQLiteApplicationRecorder(datastore), section_size=1000)
    reader = NotificationLogReader(log, section_size=1000)

    def rows() -> Iterator[Row]:
        for section in reader.select(start=1):
            for notification in section:
                yield str(notification.originator_id), notification.topic, notification.state

    figures = timed_fold(rows())
    datastore.close()
    return figures


def run_child(kind: str, url: str) -> dict[str, Any]:
    """Run one measurement in a fresh process so that its peak memory is its own."""
    output = subprocess.run(
        [sys.executable, __file__, "--child", kind, url],
        stdout=subprocess.PIPE,
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
    """Return the rebuild, stats and peer figures of one store."""
    progress(f"rebuild {url}")
    rebuild = run_child("rebuild", url)
    progress(f"floor: the rebuild's read, then its read and decode {url}")
    read = run_child("read", url)
    read_decode = run_child("read-decode", url)
    progress(f"stats --format csv {url}")
    stats = time_stats_csv(url)
    progress(f"baseline {url}")
    baseline = run_child("baseline", url)
    progress(f"copying the events into eventsourcing's recorder (untimed) {url}")
    copy = run_child("eventsourcing-fill", url)
    progress(f"eventsourcing {url}")
    eventsourcing = run_child("eventsourcing", url)
    return {
        "db": url,
        "events": rebuild["events"],
        "rebuild": rebuild,
        "stats_csv": stats,
        "baseline": baseline,
        "eventsourcing": eventsourcing,
        "eventsourcing_copy": copy,
        # A ratio above 1 means diceledger is faster; the targets are 0.5 and 1.5.
        "rebuild_vs_baseline_by_cpu": round(baseline["cpu_seconds"] / rebuild["cpu_seconds"], 3),
        "rebuild_vs_eventsourcing_by_cpu": round(
            eventsourcing["cpu_seconds"] / rebuild["cpu_seconds"], 3
        ),
        "rebuild_vs_eventsourcing_by_wall": round(eventsourcing["seconds"] / rebuild["seconds"], 3),
        # The rebuild cannot beat these: its read alone, and its read and decode.
        "read_only": read,
        "read_and_decode": read_decode,
        "read_only_vs_baseline_by_cpu": round(baseline["cpu_seconds"] / read["cpu_seconds"], 3),
        "read_and_decode_vs_baseline_by_cpu": round(
            baseline["cpu_seconds"] / read_decode["cpu_seconds"], 3
        ),
    }


def default_stores(quick: bool) -> list[str]:
    """Make (once) and return the stores measured when no --db is given."""
    folder = Path(tempfile.gettempdir()) / "diceledger-bench-stores"
    folder.mkdir(exist_ok=True)
    urls = []
    for events in (10_000, 100_000) if quick else (100_000, 1_000_000):
        path = folder / f"events-{events}.sqlite"
        url = f"sqlite:///{path}"
        if not path.exists() or store_size(path) != events:
            path.unlink(missing_ok=True)
            progress(f"making a store of {events:,} events at {path} (reused by later runs)")
            subprocess.run(
                [sys.executable, str(ROOT / "bench" / "make_store.py"), "--events", str(events)]
                + ["--db", url],
                check=True,
            )
        urls.append(url)
    return urls


def store_size(path: Path) -> int | None:
    """Return how many events a store holds, or None if it is not a finished store."""
    try:
        (count,) = sqlite3.connect(path).execute("SELECT count(*) FROM events").fetchone()
    except sqlite3.Error:
        return None
    return int(count)


CHILDREN = {
    "rebuild": child_rebuild,
    "baseline": child_baseline,
    "eventsourcing-fill": child_eventsourcing_fill,
    "eventsourcing": child_eventsourcing,
    "profile": child_profile,
    "read": lambda url: child_floor(url, decoded=False),
    "read-decode": lambda url: child_floor(url, decoded=True),
}


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        print(json.dumps(CHILDREN[sys.argv[2]](sys.argv[3])))
        return
    options = parse_options(
        __doc__.splitlines()[0],
        lambda parser: parser.add_argument(
            "--db", action="append", help="a store made by bench/make_store.py (repeatable)"
        ),
    )
    urls = options.db or default_stores(options.quick)
    results = [measure(url) for url in urls]
    if options.profile:
        progress(f"profiling the rebuild of {urls[0]}")
        run_child("profile", urls[0])
    emit("w4_replay", options.quick, machine=describe(), cpus=os.cpu_count(), results=results)


if __name__ == "__main__":
    main()

"""Code that runs in child processes of the concurrency and crash tests.

Kept at module level so that ``multiprocessing`` with the spawn method can import it.
Run as ``python -m tests.infra.workers URL STREAM`` it appends forever, printing each
event id once its append has returned (that is, once the store acknowledged it).
"""

from __future__ import annotations

import random
import sys
import uuid

from diceledger.domain.errors import ConcurrencyError
from diceledger.domain.records import NewEvent
from diceledger.infra.store.database import current_revision, make_engine, open_engine
from diceledger.infra.store.sql import SqlEventStore


def new_event(writer: str) -> NewEvent:
    """Return a fresh event tagged with its writer (no pytest import: children start fast)."""
    return NewEvent(str(uuid.uuid4()), "DiceRolled", {"face": 4, "writer": writer})


def append_with_retry(url: str, stream_id: str, count: int) -> list[str]:
    """Append ``count`` single-event batches, retrying each on conflict; return the ids."""
    engine = make_engine(url)
    store = SqlEventStore(engine)
    appended: list[str] = []
    try:
        for _ in range(count):
            event = new_event(writer=stream_id)
            while True:
                try:
                    store.append(stream_id, [event], store.current_version(stream_id))
                    break
                except ConcurrencyError:
                    continue
            appended.append(event.event_id)
    finally:
        engine.dispose()
    return appended


def append_batches(url: str, stream_id: str, count: int, seed: int) -> list[str]:
    """Append about ``count`` events to one stream in batches of one to three; return ids."""
    rng = random.Random(seed)
    engine = make_engine(url)
    store = SqlEventStore(engine)
    appended: list[str] = []
    version = 0
    try:
        while len(appended) < count:
            batch = [new_event(writer=stream_id) for _ in range(rng.randint(1, 3))]
            store.append(stream_id, batch, version)
            version += len(batch)
            appended.extend(event.event_id for event in batch)
    finally:
        engine.dispose()
    return appended


def append_forever(url: str, stream_id: str) -> None:
    """Append one event at a time and report each acknowledged id on stdout."""
    engine = make_engine(url)
    store = SqlEventStore(engine)
    version = store.current_version(stream_id)
    while True:
        event = new_event(writer="crash")
        store.append(stream_id, [event], version)
        version += 1
        sys.stdout.write(event.event_id + "\n")
        sys.stdout.flush()


def open_and_report_revision(url: str) -> str | None:
    """Open a database the way commands do (upgrading SQLite); return its revision."""
    engine = open_engine(url)
    try:
        return current_revision(engine)
    finally:
        engine.dispose()


if __name__ == "__main__":
    append_forever(sys.argv[1], sys.argv[2])

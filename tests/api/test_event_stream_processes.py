"""The live stream from `diceledger serve` processes: shutdown, and two workers on PostgreSQL."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import psycopg
import pytest

from diceledger.infra.store.database import upgrade
from tests.api.live import Client, open_table, serve_process
from tests.conftest import PG_SERVER, PG_URL_BASE

CHECK = {"kind": "check", "expression": "1d20+5", "target": 15}
STREAMS = 6  # a worker is chosen per connection by the kernel: six make both very likely
WRITES = 6


@pytest.mark.slow
def test_serve_with_an_open_stream_stops_promptly_on_sigterm(
    sqlite_url: str, tmp_path: Path
) -> None:
    with serve_process(
        sqlite_url, tmp_path / "serve.log", DICELEDGER_HEARTBEAT_SECONDS="600"
    ) as served:
        client = Client(served.url)
        table = open_table(client)
        with client.stream(table.sid, table.ann) as stream:
            stream.events_through(client.head(table.sid, table.ann))
            code = served.terminate()
            # The server ended the stream itself (a clean end, not a cut connection).
            assert stream.ended()
        client.close()
    assert code in (0, -15)  # uvicorn re-raises the SIGTERM it handled, once stopped
    log = served.log_text()
    assert "Finished server process" in log
    assert "graceful shutdown exceeded" not in log


@pytest.fixture
def fresh_postgres(postgres_database: str) -> Iterator[str]:
    """Create a database of its own (several processes use it), drop it afterwards."""
    name = f"diceledger_t_live_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(f"{PG_SERVER} dbname=test", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        url = f"{PG_URL_BASE}/{name}"
        upgrade(url)
        yield url
    finally:
        with psycopg.connect(f"{PG_SERVER} dbname=test", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.slow
@pytest.mark.postgres
def test_with_two_workers_on_postgresql_every_stream_sees_writes_made_through_either(
    fresh_postgres: str, tmp_path: Path
) -> None:
    # The heartbeat is far longer than a read may wait, so only the workers' notifications
    # can bring a write made on one worker to a stream held by the other.
    with serve_process(
        fresh_postgres,
        tmp_path / "serve.log",
        workers=2,
        DICELEDGER_HEARTBEAT_SECONDS="600",
        DICELEDGER_STREAMS_PER_TOKEN=str(STREAMS),
    ) as served:
        client = Client(served.url)
        table = open_table(client)
        head = client.head(table.sid, table.ann)
        with ExitStack() as streams:
            readers = [
                streams.enter_context(client.stream(table.sid, table.ann)) for _ in range(STREAMS)
            ]
            for reader in readers:
                reader.events_through(head)
            for number in range(WRITES):  # each on a new connection: either worker may take it
                writer = (table.ann, table.bob)[number % 2]
                rolled = client.post(f"/api/v1/sessions/{table.sid}/rolls", writer, CHECK)
                assert rolled.status_code == 201
            last = client.head(table.sid, table.ann)
            seen = [reader.events_through(last) for reader in readers]
        client.close()
    assert last > head
    for events in seen:
        assert [event.version for event in events] == list(range(head + 1, last + 1))
    # Which worker served what, from the access log: at least one stream was held by a
    # worker other than one that took a write (all twelve on one worker: odds of 1 in 2,048).
    workers = served_by(served.log_text())
    assert len(workers["events"] | workers["rolls"]) == 2, workers


def served_by(log: str) -> dict[str, set[str]]:
    """Return the worker process ids that served the streams and the rolls."""
    found: dict[str, set[str]] = {"events": set(), "rolls": set()}
    for match in re.finditer(r"diceledger\.access \[(\d+)\]: \w+ \S+/(events|rolls) ", log):
        found[match[2]].add(match[1])
    return found

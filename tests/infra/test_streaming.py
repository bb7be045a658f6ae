"""Reads stream in batches: memory stays flat however many events a read goes through."""

from __future__ import annotations

import tracemalloc
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from diceledger.domain.hashchain import ChainVerifier
from diceledger.domain.records import NewEvent
from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.sql import SqlEventStore

EVENTS = 3_000
BATCH = 100

pytestmark = pytest.mark.slow

SQL_BACKENDS = [
    pytest.param("sqlite_url", id="sqlite"),
    pytest.param("postgres_url", id="postgres", marks=pytest.mark.postgres),
]


def _peak_bytes(action: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("backend", SQL_BACKENDS)
def test_reading_thousands_of_events_holds_only_a_batch_at_a_time(
    backend: str, request: pytest.FixtureRequest
) -> None:
    url: str = request.getfixturevalue(backend)
    upgrade(url)
    engine = make_engine(url)
    try:
        store = SqlEventStore(engine, clock=lambda: datetime(2026, 11, 29, tzinfo=UTC))
        payload = {"note": "x" * 200}
        for version in range(0, EVENTS, 1_000):
            batch = [NewEvent(str(uuid.uuid4()), "Noted", payload) for _ in range(1_000)]
            store.append("long-session", batch, expected_version=version)
        reader = SqlEventStore(engine, batch_size=BATCH)
        verifier = ChainVerifier()

        def verify_streaming() -> None:
            for record in reader.read_all():
                verifier.check(record)

        streamed = _peak_bytes(verify_streaming)
        assert verifier.head("long-session").version == EVENTS
        held = _peak_bytes(lambda: list(reader.read_stream("long-session")))
        # Holding every event costs far more than streaming them, batch by batch.
        assert streamed * 5 < held
    finally:
        engine.dispose()

"""Builders shared by the store tests: events, clocks and a store for each backend."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from diceledger.domain.records import NewEvent
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.store.port import Clock, EventStore
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import InMemorySeedVault

BACKENDS = [
    pytest.param("memory", id="memory"),
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]
StoreFactory = Callable[..., EventStore]


def new_event(event_type: str = "DiceRolled", **data: Any) -> NewEvent:
    """Return a new event with a fresh id and the given data."""
    return NewEvent(
        event_id=str(uuid.uuid4()),
        event_type=event_type,
        data=data or {"face": 4},
        meta={"actor": "gm", "correlation_id": str(uuid.uuid4())},
    )


def ticking_clock(start: datetime | None = None) -> Clock:
    """Return a clock that moves one millisecond and seven microseconds per call."""
    moments: Iterator[datetime] = (
        (start or datetime(2026, 11, 29, 19, 40, 33, 123456, tzinfo=UTC))
        + timedelta(microseconds=1007 * step)
        for step in range(10**9)
    )
    return lambda: next(moments)


def database_url(backend: str, request: pytest.FixtureRequest) -> str | None:
    """Return an upgraded database URL for a SQL backend, None for the in-memory one."""
    if backend == "memory":
        return None
    if backend == "sqlite":
        url: str = request.getfixturevalue("sqlite_url")
        return url
    url = request.getfixturevalue("postgres_url")
    upgrade(url)
    return url


def store_factory(backend: str, request: pytest.FixtureRequest) -> StoreFactory:
    """Return a function building stores of one backend that all share one database."""
    url = database_url(backend, request)
    engines = []

    def build(**options: Any) -> EventStore:
        if url is None:
            return InMemoryEventStore(**options)
        engine = make_engine(url)
        engines.append(engine)
        return SqlEventStore(engine, **options)

    def dispose() -> None:
        for engine in engines:
            engine.dispose()

    request.addfinalizer(dispose)
    return build


def catch_up_overtaken(slow: Any, fast: Any) -> list[int]:
    """Catch ``slow`` up while ``fast`` catches up everything after slow's first batch.

    Returns the batch sizes ``slow`` reported: a single one when it dropped the rest.
    """
    reported: list[int] = []

    def overtake(done: int) -> None:
        reported.append(done)
        if len(reported) == 1:
            fast.catch_up()

    slow.catch_up(overtake)
    return reported


@dataclass
class MemoryServices:
    """A session service on the in-memory store and vault, with both at hand for checks."""

    store: InMemoryEventStore
    vault: InMemorySeedVault
    sessions: SessionService


def memory_services() -> MemoryServices:
    """Return a session service on a fresh in-memory store and vault."""
    store, vault = InMemoryEventStore(), InMemorySeedVault()
    return MemoryServices(store, vault, SessionService(store, vault))

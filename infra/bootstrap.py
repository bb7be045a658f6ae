"""The composition root: build the store, the vault and the services from a URL."""

from __future__ import annotations

from dataclasses import dataclass

from diceledger.infra.sessions import SessionService, Vault
from diceledger.infra.store.port import EventStore


@dataclass
class Services:
    """Everything a command needs, built once per process."""

    store: EventStore
    vault: Vault
    sessions: SessionService
    url: str


def bootstrap(db_url: str | None = None) -> Services:
    """Open (and upgrade if embedded) the database at ``db_url`` and wire the services."""
    from diceledger.infra.db import open_engine, resolve_url
    from diceledger.infra.store.sql import SqlEventStore
    from diceledger.infra.vault import SeedVault

    url = resolve_url(db_url)
    engine = open_engine(url)
    store = SqlEventStore(engine)
    vault = SeedVault(engine)
    return Services(store, vault, SessionService(store, vault), url)


def in_memory() -> Services:
    """Wire the services on the in-memory store and vault (tests, the demo's dry runs)."""
    from diceledger.infra.store.memory import InMemoryEventStore
    from diceledger.infra.vault import InMemorySeedVault

    store = InMemoryEventStore()
    vault = InMemorySeedVault()
    return Services(store, vault, SessionService(store, vault), "memory://")

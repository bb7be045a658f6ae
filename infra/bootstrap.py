"""The composition root: build the store, the vault and the application from a URL."""

from __future__ import annotations

from diceledger.infra.app.application import Application


def bootstrap(db_url: str | None = None) -> Application:
    """Open (and upgrade if embedded) the database at ``db_url`` and wire the application."""
    from diceledger.infra.db import open_engine, resolve_url, safe_url
    from diceledger.infra.store.sql import SqlEventStore
    from diceledger.infra.vault import SeedVault

    url = resolve_url(db_url)
    engine = open_engine(url)
    return Application(SqlEventStore(engine), SeedVault(engine), safe_url(url), engine)


def in_memory() -> Application:
    """Wire the application on the in-memory store and vault (tests, dry runs)."""
    from diceledger.infra.store.memory import InMemoryEventStore
    from diceledger.infra.vault import InMemorySeedVault

    return Application(InMemoryEventStore(), InMemorySeedVault(), "memory://")

"""The composition root: build the store, the vault and the application from a URL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from diceledger.infra.app.application import Application

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from diceledger.infra.app.access import AccessService
    from diceledger.infra.app.discord import DiscordTables
    from diceledger.infra.app.idempotency import IdempotentRequests


@dataclass(frozen=True, slots=True)
class ServerParts:
    """What the HTTP face needs: the application, access control and idempotent requests."""

    app: Application
    access: AccessService
    requests: IdempotentRequests
    discord: DiscordTables  # channels and Discord users bound to sessions and members


def bootstrap(db_url: str | None = None) -> Application:
    """Open (and upgrade if embedded) the database at ``db_url`` and wire the application."""
    return _opened(db_url)[0]


def bootstrap_server(db_url: str | None = None) -> ServerParts:
    """Wire the application and the server's access control on one database."""
    from diceledger.infra.access.store import AccessStore
    from diceledger.infra.app.access import AccessService
    from diceledger.infra.app.discord import DiscordTables
    from diceledger.infra.app.idempotency import IdempotentRequests
    from diceledger.infra.discord.store import BindingStore

    app, engine = _opened(db_url)
    store = AccessStore(engine)
    requests = IdempotentRequests(store)
    access = AccessService(app, store, requests)
    return ServerParts(app, access, requests, DiscordTables(app, access, BindingStore(engine)))


def in_memory() -> Application:
    """Wire the application on the in-memory store and vault (tests, dry runs)."""
    from diceledger.infra.store.memory import InMemoryEventStore
    from diceledger.infra.vault import InMemorySeedVault

    return Application(InMemoryEventStore(), InMemorySeedVault(), "memory://")


def _opened(db_url: str | None) -> tuple[Application, Engine]:
    from diceledger.infra.db import open_engine, resolve_url, safe_url
    from diceledger.infra.store.sql import SqlEventStore
    from diceledger.infra.vault import SeedVault

    url = resolve_url(db_url)
    engine = open_engine(url)
    app = Application(SqlEventStore(engine), SeedVault(engine), safe_url(url), engine, url)
    return app, engine

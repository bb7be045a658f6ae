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
    from diceledger.infra.live import LiveUpdates
    from diceledger.infra.sessions import Appended


@dataclass(frozen=True, slots=True)
class ServerParts:
    """What the HTTP face needs: the application, access control, idempotent requests, and
    the live updates every append is announced to."""

    app: Application
    access: AccessService
    requests: IdempotentRequests
    live: LiveUpdates
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
    from diceledger.infra.live import LiveUpdates
    from diceledger.infra.live_postgres import PostgresChannel

    url, engine = _engine(db_url)
    # Several workers share a PostgreSQL store, so their streams must hear each other's
    # appends; a SQLite store has one worker.
    channel = PostgresChannel(engine) if engine.dialect.name == "postgresql" else None
    live = LiveUpdates(channel)
    app = _application(url, engine, live.appended)
    store = AccessStore(engine)
    requests = IdempotentRequests(store)
    access = AccessService(app, store, requests)
    discord = DiscordTables(app, access, BindingStore(engine))
    return ServerParts(app, access, requests, live, discord)


def in_memory() -> Application:
    """Wire the application on the in-memory store and vault (tests, dry runs)."""
    from diceledger.infra.store.memory import InMemoryEventStore
    from diceledger.infra.vault import InMemorySeedVault

    return Application(InMemoryEventStore(), InMemorySeedVault(), "memory://")


def _opened(db_url: str | None) -> tuple[Application, Engine]:
    url, engine = _engine(db_url)
    return _application(url, engine), engine


def _engine(db_url: str | None) -> tuple[str, Engine]:
    from diceledger.infra.db import open_engine, resolve_url

    url = resolve_url(db_url)
    return url, open_engine(url)


def _application(url: str, engine: Engine, on_appended: Appended | None = None) -> Application:
    from diceledger.infra.db import safe_url
    from diceledger.infra.store.sql import SqlEventStore
    from diceledger.infra.vault import SeedVault

    store, vault = SqlEventStore(engine), SeedVault(engine)
    return Application(store, vault, safe_url(url), engine, url, on_appended)

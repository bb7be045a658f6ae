"""The composition root: build the store, the vault and the application from a URL."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from diceledger.infra.app.application import Application

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from diceledger.infra.app.access import AccessService
    from diceledger.infra.app.discord import DiscordTables
    from diceledger.infra.app.discord_calls import DiscordCalls
    from diceledger.infra.app.feed import Live
    from diceledger.infra.app.idempotency import IdempotentRequests
    from diceledger.infra.app.sessions import Appended
    from diceledger.infra.live.updates import LiveUpdates


@dataclass(frozen=True, slots=True)
class ServerParts:
    """What the HTTP face needs: the application, access control, idempotent requests, and
    the live updates every append is announced to."""

    app: Application
    access: AccessService
    requests: IdempotentRequests
    live: LiveUpdates
    discord: DiscordTables  # channels and Discord users bound to sessions and members


def bootstrap(db_url: str | None = None, signing_key: Path | None = None) -> Application:
    """Open (and upgrade if embedded) the database at ``db_url`` and wire the application.

    Every append is signed with the key at ``signing_key`` (else DICELEDGER_SIGNING_KEY,
    else ``signing.key`` in the user data directory), created on first use.
    """
    return _opened(db_url, signing_key)[0]


def bootstrap_server(
    db_url: str | None = None, signing_key: Path | None = None, origin: str | None = None
) -> ServerParts:
    """Wire the application and the server's access control on one database.

    ``origin``, the server's public origin (else DICELEDGER_ORIGIN), names the signing key
    when this server creates it (``<host>/diceledger``, the start of every checkpoint's
    origin); a key that exists keeps its name.
    """
    from diceledger.infra.access.store import AccessStore
    from diceledger.infra.app.access import AccessService
    from diceledger.infra.app.discord import DiscordTables
    from diceledger.infra.app.idempotency import IdempotentRequests
    from diceledger.infra.discord.store import BindingStore
    from diceledger.infra.live.postgres import PostgresChannel
    from diceledger.infra.live.updates import LiveUpdates

    url, engine = _engine(db_url)
    # Several workers share a PostgreSQL store, so their streams must hear each other's
    # appends; a SQLite store has one worker.
    channel = PostgresChannel(engine) if engine.dialect.name == "postgresql" else None
    live = LiveUpdates(channel)
    app = _application(url, engine, signing_key, origin, live.appended)
    store = AccessStore(engine)
    requests = IdempotentRequests(store)
    access = AccessService(app, store, requests)
    discord = DiscordTables(app, access, BindingStore(engine))
    return ServerParts(app, access, requests, live, discord)


def discord_api(base_url: str) -> DiscordCalls:
    """Return the client of Discord's HTTP API at ``base_url``, over the standard library."""
    from diceledger.infra.discord.api import DiscordApi, UrllibTransport

    return DiscordApi(UrllibTransport(), base_url)


def unannounced_live() -> Live:
    """Return live updates no application announces to: streams read only on heartbeats."""
    from diceledger.infra.live.updates import LiveUpdates

    return LiveUpdates()


def in_memory() -> Application:
    """Wire the application on the in-memory store and vault (tests, dry runs)."""
    from diceledger.infra.store.memory import InMemoryEventStore
    from diceledger.infra.vault.seeds import InMemorySeedVault

    return Application(InMemoryEventStore(), InMemorySeedVault(), "memory://")


def _opened(
    db_url: str | None, signing_key: Path | None, origin: str | None = None
) -> tuple[Application, Engine]:
    url, engine = _engine(db_url)
    return _application(url, engine, signing_key, origin), engine


def _engine(db_url: str | None) -> tuple[str, Engine]:
    from diceledger.infra.store.database import open_engine, resolve_url

    url = resolve_url(db_url)
    return url, open_engine(url)


def _application(
    url: str,
    engine: Engine,
    signing_key: Path | None,
    origin: str | None = None,
    on_appended: Appended | None = None,
) -> Application:
    """Wire the application on ``engine``; every append signed with the server's key."""
    from diceledger.infra.ledger.checkpoint_ledger import CheckpointLedger
    from diceledger.infra.ledger.signing import open_keyring
    from diceledger.infra.snapshots.store import SnapshotStore
    from diceledger.infra.store.database import safe_url
    from diceledger.infra.store.sql import SqlEventStore
    from diceledger.infra.vault.seeds import SeedVault

    keyring = open_keyring(signing_key, origin)
    ledger = CheckpointLedger(engine, keyring)
    store, vault = SqlEventStore(engine), SeedVault(engine)
    return Application(
        store,
        vault,
        safe_url(url),
        engine,
        url,
        on_appended,
        ledger=ledger,
        keyring=keyring,
        snapshots=SnapshotStore(engine),
        # A stored session's verify holds the log to the heads file too, not only to the
        # checkpoints in the database a rewriter could cut with it.
        anchors=(ledger.heads,),
    )

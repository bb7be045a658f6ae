"""The composition root: build the store, the vault and the application from a URL."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from diceledger.infra.app.application import Application

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from diceledger.infra.app.access import AccessService
    from diceledger.infra.app.idempotency import IdempotentRequests


@dataclass(frozen=True, slots=True)
class ServerParts:
    """What the HTTP face needs: the application, access control and idempotent requests."""

    app: Application
    access: AccessService
    requests: IdempotentRequests


def bootstrap(db_url: str | None = None, signing_key: Path | None = None) -> Application:
    """Open (and upgrade if embedded) the database at ``db_url`` and wire the application.

    Every append is signed with the key at ``signing_key`` (else DICELEDGER_SIGNING_KEY,
    else ``signing.key`` in the user data directory), created on first use.
    """
    return _opened(db_url, signing_key)[0]


def bootstrap_server(
    db_url: str | None = None, signing_key: Path | None = None, server_name: str | None = None
) -> ServerParts:
    """Wire the application and the server's access control on one database.

    ``server_name`` names the signing key when this server creates it (``<name>/diceledger``,
    the start of every checkpoint's origin); a key that exists keeps its name.
    """
    from diceledger.infra.access.store import AccessStore
    from diceledger.infra.app.access import AccessService
    from diceledger.infra.app.idempotency import IdempotentRequests

    app, engine = _opened(db_url, signing_key, server_name)
    store = AccessStore(engine)
    requests = IdempotentRequests(store)
    return ServerParts(app, AccessService(app, store, requests), requests)


def in_memory() -> Application:
    """Wire the application on the in-memory store and vault (tests, dry runs)."""
    from diceledger.infra.store.memory import InMemoryEventStore
    from diceledger.infra.vault import InMemorySeedVault

    return Application(InMemoryEventStore(), InMemorySeedVault(), "memory://")


def _opened(
    db_url: str | None, signing_key: Path | None, server_name: str | None = None
) -> tuple[Application, Engine]:
    from diceledger.infra.db import open_engine, resolve_url, safe_url
    from diceledger.infra.ledger import CheckpointLedger
    from diceledger.infra.signing import DEFAULT_SERVER_NAME, open_keyring
    from diceledger.infra.store.sql import SqlEventStore
    from diceledger.infra.vault import SeedVault

    url = resolve_url(db_url)
    engine = open_engine(url)
    keyring = open_keyring(signing_key, server_name or DEFAULT_SERVER_NAME)
    ledger = CheckpointLedger(engine, keyring)
    store = SqlEventStore(engine)
    app = Application(store, SeedVault(engine), safe_url(url), engine, url, ledger, keyring)
    return app, engine

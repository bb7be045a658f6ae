"""An HTTP client on the app, on SQLite and on PostgreSQL, and a table played through it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from diceledger.infra.bootstrap import bootstrap_server
from diceledger.infra.store.database import make_engine
from diceledger.web.app import build_app
from diceledger.web.context import Settings, WebServices
from tests.infra.support import database_url


@dataclass
class Api:
    """A test client with helpers that speak as a given token."""

    client: TestClient
    services: WebServices
    url: str
    db: Engine  # the test's own connection to the app's database, to look behind the API

    def post(
        self, path: str, token: str | None = None, body: Any = None, key: str | None = None
    ) -> Any:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        if key is not None:
            headers["Idempotency-Key"] = key
        return self.client.post(path, json=body, headers=headers)

    def get(self, path: str, token: str | None = None, **params: Any) -> Any:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return self.client.get(path, headers=headers, params=params)

    def roll(self, sid: str, token: str, body: dict[str, Any]) -> Any:
        return self.post(f"/api/v1/sessions/{sid}/rolls", token, body, key=str(uuid.uuid4()))


@dataclass
class Table:
    """A session with a GM and two players, each holding their own token."""

    sid: str
    gm: str
    ann: str
    bob: str
    tokens: dict[str, str] = field(default_factory=dict)


def build_api(url: str, settings: Settings | None = None) -> Api:
    parts = bootstrap_server(url)
    services = WebServices(
        parts.app, parts.access, parts.requests, settings or Settings(), live=parts.live
    )
    return Api(TestClient(build_app(services)), services, url, make_engine(url))


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def api(request: pytest.FixtureRequest) -> Iterator[Api]:
    yield from served_api(request.param, request)


@pytest.fixture
def postgres_api(request: pytest.FixtureRequest) -> Iterator[Api]:
    """The API on PostgreSQL alone, for what only PostgreSQL has (its locks, its wire)."""
    yield from served_api("postgres", request)


def served_api(store: str, request: pytest.FixtureRequest) -> Iterator[Api]:
    """Serve the API on a fresh database of ``store``; close it all after the test."""
    url = database_url(store, request)
    assert url is not None
    built = build_api(url)
    try:
        with built.client:
            yield built
    finally:
        built.services.app.close()
        built.db.dispose()


def open_table(api: Api) -> Table:
    """Open a session as GM mira and let ann and bob join by invite."""
    opened = api.post("/api/v1/sessions", body={"title": "Tomb of Ash", "name": "mira"}).json()
    sid, gm = opened["session_id"], opened["gm_token"]
    tokens = {}
    for name in ("ann", "bob"):
        code = api.post(f"/api/v1/sessions/{sid}/invites", gm).json()["invite_code"]
        joined = api.post(f"/api/v1/sessions/{sid}/join", body={"invite_code": code, "name": name})
        tokens[name] = joined.json()["player_token"]
    return Table(sid, gm, tokens["ann"], tokens["bob"], {"mira": gm, **tokens})


@pytest.fixture
def table(api: Api) -> Table:
    return open_table(api)

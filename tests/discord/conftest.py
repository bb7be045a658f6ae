"""A fake Discord: it signs interactions with a test key, and receives what the server sends.

``FakeDiscord`` builds interactions the way Discord posts them (a guild member clicking a
slash command or a button), signs timestamp + body with a test Ed25519 key, and posts them
to the server. ``FakeWebhooks`` stands in for Discord's API: it records every follow-up
the server sends with an interaction's token.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from diceledger.infra.bootstrap import bootstrap_server
from diceledger.infra.discord.api import DiscordApi, HttpAnswer
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.sql import SqlEventStore
from diceledger.web.app import build_app
from diceledger.web.context import WebServices
from diceledger.web.discord.face import DiscordSettings, build_discord
from tests.infra.support import database_url

APP_ID = "900000000000000001"
CHANNEL = "700000000000000001"
OTHER_CHANNEL = "700000000000000002"
GUILD = "600000000000000001"


@dataclass(frozen=True)
class User:
    """A Discord user: the id Discord signs, and the names it shows."""

    user_id: str
    username: str
    nick: str | None = None

    def member(self) -> dict[str, Any]:
        return {"user": {"id": self.user_id, "username": self.username}, "nick": self.nick}


MIRA = User("100000000000000001", "mira")
ANN = User("100000000000000002", "ann")
BOB = User("100000000000000003", "bob")
EVE = User("100000000000000004", "eve")

# Discord's interaction ids are unique: one counter for every fake in the run.
INTERACTION_IDS = itertools.count(800000000000000001)
Post = Callable[[bytes, dict[str, str]], tuple[int, Any]]


def public_hex(key: Ed25519PrivateKey) -> str:
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw.hex()


@dataclass
class FakeDiscord:
    """Sign and post interactions as Discord would."""

    post: Post
    key: Ed25519PrivateKey
    ids: Iterator[int] = field(default_factory=lambda: INTERACTION_IDS)
    sent: list[dict[str, Any]] = field(default_factory=list)

    def deliver(
        self,
        payload: dict[str, Any],
        timestamp: int | None = None,
        key: Ed25519PrivateKey | None = None,
        tamper: Callable[[bytes], bytes] | None = None,
    ) -> tuple[int, Any]:
        """Sign and post one interaction; return the status and the JSON answered."""
        body = json.dumps(payload).encode()
        stamp = str(int(time.time()) if timestamp is None else timestamp)
        signature = (key or self.key).sign(stamp.encode() + body).hex()
        headers = {
            "Content-Type": "application/json",
            "X-Signature-Ed25519": signature,
            "X-Signature-Timestamp": stamp,
        }
        self.sent.append(payload)
        return self.post(tamper(body) if tamper else body, headers)

    def interaction(
        self, kind: int, user: User, channel: str, data: dict[str, Any]
    ) -> dict[str, Any]:
        """Return an interaction as Discord posts it from a server's channel."""
        number = next(self.ids)
        return {
            "id": str(number),
            "application_id": APP_ID,
            "type": kind,
            "token": f"interaction-token-{number}",
            "guild_id": GUILD,
            "channel_id": channel,
            "channel": {"id": channel, "type": 0},
            "member": user.member(),
            "data": data,
            "version": 1,
        }

    def command(
        self, user: User, sub: str, channel: str = CHANNEL, **options: Any
    ) -> dict[str, Any]:
        """Return `/dl SUB option:value ...` typed by ``user``."""
        types = {str: 3, bool: 5, int: 4}
        given = [
            {"name": name, "type": types[type(value)], "value": value}
            for name, value in options.items()
        ]
        data = {
            "id": "1",
            "name": "dl",
            "type": 1,
            "options": [{"name": sub, "type": 1, "options": given}],
        }
        return self.interaction(2, user, channel, data)

    def click(self, user: User, custom_id: str, channel: str = CHANNEL) -> dict[str, Any]:
        """Return a click on the button ``custom_id`` by ``user``."""
        return self.interaction(3, user, channel, {"custom_id": custom_id, "component_type": 2})

    def run(self, user: User, sub: str, channel: str = CHANNEL, **options: Any) -> dict[str, Any]:
        """Send `/dl SUB ...` and return the interaction response, which must be a message."""
        status, answer = self.deliver(self.command(user, sub, channel, **options))
        assert status == 200, answer
        return dict(answer)


@dataclass
class FakeWebhooks:
    """Discord's API as the server calls it: records each call, answers 200 (or 204)."""

    calls: list[tuple[str, str, dict[str, Any] | None]] = field(default_factory=list)

    def send(self, method: str, url: str, headers: Any, body: bytes | None) -> HttpAnswer:
        document = None if body is None else json.loads(body)
        self.calls.append((method, url, document))
        return HttpAnswer(204 if method == "DELETE" else 200, b"{}")

    def messages(self) -> list[dict[str, Any]]:
        return [document for _, _, document in self.calls if document is not None]


@dataclass
class DiscordTable:
    """The server under test, the fake Discord in front of it, and a way to count events."""

    url: str
    client: TestClient
    discord: FakeDiscord
    webhooks: FakeWebhooks
    services: WebServices
    engine: Engine

    @property
    def store(self) -> SqlEventStore:
        return SqlEventStore(self.engine)

    def events(self) -> int:
        """Return how many events the whole store holds."""
        return self.store.head_position()

    def session_of(self, answer: dict[str, Any]) -> str:
        content = str(answer["data"]["content"])
        return content.split("(session `", 1)[1].split("`", 1)[0]


# Long enough that no answer is deferred on a loaded machine: only the tests about deferring
# (defer_after=0) see a deferred answer, whatever the load.
ANSWER_INLINE = 600.0


def build_table(
    url: str,
    key: Ed25519PrivateKey,
    defer_after: float = ANSWER_INLINE,
    rolls_per_minute: int = 120,
) -> DiscordTable:
    parts = bootstrap_server(url)
    webhooks = FakeWebhooks()
    settings = DiscordSettings(
        public_hex(key),
        "https://dice.example",
        "https://discord.test/api/v10",
        defer_after,
        rolls_per_minute,
    )
    api = DiscordApi(webhooks, settings.api_url)
    face = build_discord(settings, parts.app, parts.discord, parts.requests, api)
    services = WebServices(parts.app, parts.access, parts.requests, discord=face)
    client = TestClient(build_app(services))

    def post(body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
        answer = client.post("/discord/interactions", content=body, headers=headers)
        return answer.status_code, answer.json()

    return DiscordTable(url, client, FakeDiscord(post, key), webhooks, services, make_engine(url))


@pytest.fixture(scope="session")
def signing_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def db_url(request: pytest.FixtureRequest) -> str:
    url = database_url(request.param, request)
    assert url is not None
    return url


@pytest.fixture
def discord_table(db_url: str, signing_key: Ed25519PrivateKey) -> Iterator[DiscordTable]:
    table = build_table(db_url, signing_key)
    try:
        with table.client:
            yield table
    finally:
        table.services.app.close()
        table.engine.dispose()


def invite_code(table: DiscordTable, channel: str = CHANNEL) -> str:
    """Return a fresh invite code the GM (mira) asked for."""
    answer = table.discord.run(MIRA, "invite", channel)
    return str(answer["data"]["content"].split("\n`", 1)[1].split("`", 1)[0])


def seat_players(table: DiscordTable, channel: str = CHANNEL, title: str = "Tomb of Ash") -> str:
    """Start a session in ``channel`` run by mira, joined by ann and bob; return its id."""
    session_id = table.session_of(table.discord.run(MIRA, "start", channel, title=title))
    for user in (ANN, BOB):
        answer = table.discord.run(user, "join", channel, code=invite_code(table, channel))
        assert "joins session" in answer["data"]["content"], answer
    return session_id


@pytest.fixture
def seated(discord_table: DiscordTable) -> str:
    """Return the session of CHANNEL, with mira its GM and ann and bob its players."""
    return seat_players(discord_table)

"""The calls to Discord's API: the paths Discord documents, and nothing followed elsewhere."""

from __future__ import annotations

import pytest

from diceledger.domain.errors import RemoteServiceError
from diceledger.infra.app.discord_calls import InteractionHandle
from diceledger.infra.discord.api import DiscordApi, UrllibTransport
from tests.discord.fake_api import fake_discord_api

HANDLE = InteractionHandle("111", "the-interaction-token", "222")


def test_follow_ups_and_edits_use_the_interaction_webhook() -> None:
    with fake_discord_api() as api:
        discord = DiscordApi(UrllibTransport(), api.url)
        discord.follow_up(HANDLE, {"content": "a"})
        discord.edit_original(HANDLE, {"content": "b"})
        discord.delete_original(HANDLE)
    calls = [(r.method, r.path, r.body) for r in api.received]
    assert calls == [
        ("POST", "/api/v10/webhooks/111/the-interaction-token", {"content": "a"}),
        (
            "PATCH",
            "/api/v10/webhooks/111/the-interaction-token/messages/@original",
            {"content": "b"},
        ),
        ("DELETE", "/api/v10/webhooks/111/the-interaction-token/messages/@original", None),
    ]
    assert all("Authorization" not in r.headers for r in api.received)  # the token is the URL


def test_a_redirect_is_refused_not_followed() -> None:
    with fake_discord_api() as api:
        api.status = 302
        with pytest.raises(RemoteServiceError, match="HTTP 302") as refused:
            DiscordApi(UrllibTransport(), api.url).follow_up(HANDLE, {"content": "a"})
    assert len(api.received) == 1  # nothing went to /elsewhere
    assert "the-interaction-token" not in str(refused.value)

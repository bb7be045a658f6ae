"""The Discord face, built when an application's public key is configured.

Settings come from the environment of `diceledger serve`:

- ``DICELEDGER_DISCORD_PUBLIC_KEY``: the application's public key (hex, from Discord's
  developer portal). Without it `/discord/interactions` does not exist (404).
- ``DICELEDGER_PUBLIC_URL``: where people reach this server (``https://dice.example``);
  messages then link each roll to its page and receipt.
- ``DICELEDGER_DISCORD_API_URL``: Discord's API (tests point it at a local fake).
- ``DICELEDGER_DISCORD_DEFER_AFTER``: seconds before an answer is deferred (default 2).
- ``DICELEDGER_ROLLS_PER_MINUTE``: interactions that draw dice, per Discord user and
  worker (default 120, the API's limit per token); past it an interaction is refused
  privately and rolls nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from diceledger.infra.app.application import Application
from diceledger.infra.app.discord import DiscordTables
from diceledger.infra.app.discord_calls import DEFAULT_API_URL, DiscordCalls
from diceledger.infra.app.idempotency import IdempotentRequests
from diceledger.infra.bootstrap import ServerParts, discord_api
from diceledger.web.discord.actions import TableActions
from diceledger.web.discord.answering import (
    DEFAULT_DEFER_AFTER,
    DEFAULT_ROLLS_PER_MINUTE,
    Answerer,
)
from diceledger.web.discord.rolls import Links
from diceledger.web.discord.signature import SignatureCheck, public_key

PUBLIC_KEY = "DICELEDGER_DISCORD_PUBLIC_KEY"
PUBLIC_URL = "DICELEDGER_PUBLIC_URL"
API_URL = "DICELEDGER_DISCORD_API_URL"
DEFER_AFTER = "DICELEDGER_DISCORD_DEFER_AFTER"
ROLLS_PER_MINUTE = "DICELEDGER_ROLLS_PER_MINUTE"


@dataclass(frozen=True, slots=True)
class DiscordSettings:
    """What the Discord face is configured with."""

    public_key: str  # hex
    public_url: str | None = None
    api_url: str = DEFAULT_API_URL
    defer_after: float = DEFAULT_DEFER_AFTER
    rolls_per_minute: int = DEFAULT_ROLLS_PER_MINUTE

    @classmethod
    def from_environment(cls, env: Mapping[str, str] = os.environ) -> DiscordSettings | None:
        """Return the settings in ``env``, or None when no public key is configured."""
        key = env.get(PUBLIC_KEY, "").strip()
        if not key:
            return None
        return cls(
            public_key=key,
            public_url=env.get(PUBLIC_URL, "").strip() or None,
            api_url=env.get(API_URL, "").strip() or DEFAULT_API_URL,
            defer_after=float(env.get(DEFER_AFTER, DEFAULT_DEFER_AFTER)),
            rolls_per_minute=int(env.get(ROLLS_PER_MINUTE, DEFAULT_ROLLS_PER_MINUTE)),
        )


@dataclass(frozen=True, slots=True)
class DiscordFace:
    """The signature check and the answerer of `/discord/interactions`."""

    signatures: SignatureCheck
    answerer: Answerer


def build_discord(
    settings: DiscordSettings,
    app: Application,
    tables: DiscordTables,
    requests: IdempotentRequests,
    api: DiscordCalls | None = None,
    signatures: SignatureCheck | None = None,
) -> DiscordFace:
    """Wire the Discord face; tests hand in an API on a fake transport and a clocked check."""
    api = api or discord_api(settings.api_url)
    actions = TableActions(app, tables, Links(settings.public_url))
    return DiscordFace(
        signatures or SignatureCheck(public_key(settings.public_key)),
        Answerer(actions, requests, api, settings.defer_after, settings.rolls_per_minute),
    )


def discord_from_environment(parts: ServerParts) -> DiscordFace | None:
    """Return the Discord face the environment configures, or None without a public key."""
    settings = DiscordSettings.from_environment()
    if settings is None:
        return None
    return build_discord(settings, parts.app, parts.discord, parts.requests)

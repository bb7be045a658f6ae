"""The ASGI entry point uvicorn imports in each worker: settings come from the environment.

`diceledger serve` sets DICELEDGER_DB (and the limits) before starting uvicorn, so every
worker process builds the same app on the same database.
"""

from __future__ import annotations

import os

from fastapi import FastAPI

from diceledger.infra.bootstrap import bootstrap_server
from diceledger.web.app import build_app
from diceledger.web.context import Settings, WebServices
from diceledger.web.discord.face import discord_from_environment


def settings_from_environment() -> Settings:
    """Return the default settings, with any limit given in the environment."""
    default = Settings()

    def number(variable: str, fallback: int) -> int:
        return int(os.environ.get(variable, fallback))

    return Settings(
        max_body_bytes=number("DICELEDGER_MAX_BODY_BYTES", default.max_body_bytes),
        rolls_per_minute=number("DICELEDGER_ROLLS_PER_MINUTE", default.rolls_per_minute),
        redemptions_per_minute=number(
            "DICELEDGER_REDEMPTIONS_PER_MINUTE", default.redemptions_per_minute
        ),
        streams_per_token=number("DICELEDGER_STREAMS_PER_TOKEN", default.streams_per_token),
        heartbeat_seconds=float(
            os.environ.get("DICELEDGER_HEARTBEAT_SECONDS", default.heartbeat_seconds)
        ),
    )


def create() -> FastAPI:
    """Build the app on the database named by DICELEDGER_DB (or the default file)."""
    # The server's public origin (DICELEDGER_ORIGIN) names its signing key when the first
    # worker creates it; the keyring reads it.
    parts = bootstrap_server(os.environ.get("DICELEDGER_DB"))
    settings = settings_from_environment()
    services = WebServices(parts.app, parts.access, parts.requests, settings, live=parts.live)
    services.discord = discord_from_environment(parts)
    return build_app(services)

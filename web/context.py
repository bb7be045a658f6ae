"""What every route reaches: the application, access control and the server's limits."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from diceledger.infra.app.access import AccessService
from diceledger.infra.app.application import Application
from diceledger.infra.app.feed import Live
from diceledger.infra.app.idempotency import IdempotentRequests
from diceledger.infra.bootstrap import unannounced_live
from diceledger.web.discord.face import DiscordFace
from diceledger.web.limits import Limits


@dataclass(frozen=True, slots=True)
class Settings:
    """The server's limits (docs/api.md lists them)."""

    max_body_bytes: int = 64 * 1024
    rolls_per_minute: int = 120  # per member, on all their devices: every POST that draws dice
    redemptions_per_minute: int = 20  # per session: invite codes tried
    streams_per_token: int = 4  # live streams open at once, per worker
    heartbeat_seconds: float = 15.0  # a quiet stream's comment line, and its re-read
    odds_wait_seconds: float = 2.0  # how long odds with rerolls wait for the one running


@dataclass
class WebServices:
    """Everything the routes call, built once per worker process."""

    app: Application
    access: AccessService
    requests: IdempotentRequests
    settings: Settings = field(default_factory=Settings)
    limits: Limits = field(default_factory=Limits)
    # The application must announce its appends to this same object (bootstrap_server).
    live: Live = field(default_factory=unannounced_live)
    discord: DiscordFace | None = None  # only when a Discord application is configured
    # Odds with rerolls can take seconds of CPU (docs/odds.md): one at a time per worker,
    # so that anyone's questions cannot starve the rolls of its tables.
    reroll_odds: threading.BoundedSemaphore = field(
        default_factory=lambda: threading.BoundedSemaphore(1)
    )


async def web_services(request: Request) -> WebServices:
    """Return the services the app was built with.

    A coroutine, though it awaits nothing: FastAPI runs a plain function dependency in
    the threadpool, a handoff each request would pay for an attribute read.
    """
    services: WebServices = request.app.state.services
    return services


Services = Annotated[WebServices, Depends(web_services)]

"""The real server (uvicorn, the whole app) on 127.0.0.1 in a thread, stopped by the test."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn
from fastapi import FastAPI

from diceledger.infra.bootstrap import bootstrap_server
from diceledger.web.app import build_app
from diceledger.web.context import Settings, WebServices

# A browser test rolls faster than a person: keep the limits out of its way.
SETTINGS = Settings(rolls_per_minute=10_000, redemptions_per_minute=10_000)


@dataclass(frozen=True)
class LiveServer:
    """A running server: its base URL (no trailing slash) and the services behind it."""

    url: str
    port: int
    services: WebServices


def free_port() -> int:
    """Return a port free on 127.0.0.1 just now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def live_server(
    db_url: str,
    port: int = 0,
    customise: Callable[[FastAPI, WebServices], None] | None = None,
    settings: Settings = SETTINGS,
) -> Iterator[LiveServer]:
    """Serve the app on ``db_url`` at 127.0.0.1:``port`` (a free one by default) until the end."""
    parts = bootstrap_server(db_url)
    services = WebServices(parts.app, parts.access, parts.requests, settings, live=parts.live)
    app = build_app(services)
    if customise is not None:
        customise(app, services)
    port = port or free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",  # starts the live updates that wake the event streams
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="live-server", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield LiveServer(f"http://127.0.0.1:{port}", port, services)
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        parts.app.close()
        assert not thread.is_alive(), "the server did not stop"


def invite_link(server: LiveServer) -> str:
    """Open a session run by mira on ``server`` and return an invite link to it."""
    access = server.services.access
    opened = access.open_session("Tomb of Ash", "mira")
    owner = access.as_owner(opened.started.session_id, "mira")
    return f"{server.url}/join/{access.invite(owner).code}"

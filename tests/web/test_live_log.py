"""The live log: it follows the session's event stream, survives a lost connection, and
falls back to polling on a server without the stream.

The stream here is a stand-in written to the contract of GET .../events (``id:`` the
stream version, ``event:`` the event type, ``data:`` {"line", "roll"}, resumable with
Last-Event-ID), so the page's EventSource client is proven against that contract.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse

from diceledger.domain.dice.request import RollKind
from diceledger.domain.session import commands as cmd
from diceledger.infra.bootstrap import bootstrap
from diceledger.web.auth import Member
from diceledger.web.context import Services, WebServices
from tests.web.conftest import OpenBrowser
from tests.web.live_server import LiveServer, free_port, live_server
from tests.web.people import Person


def roll_six(url: str, session_id: str, face: int) -> None:
    """Roll as the GM straight on the store, as another server process would."""
    app = bootstrap(url)
    try:
        app.request_roll(
            "mira", session_id, cmd.RequestRoll(RollKind.EFFECT, "1d6n", faces=(face,))
        )
    finally:
        app.close()


def signed_in_gm(server: LiveServer, person: Person) -> str:
    access = server.services.access
    session_id = access.open_session("Tomb of Ash", "mira").started.session_id
    code = access.sign_in_code(access.as_owner(session_id, "mira")).code
    person.open(f"/sign-in/{code}")
    person.click("form button[type=submit]")
    person.until(lambda: "/s/" in person.driver.current_url)
    person.wait_log_loaded()
    return session_id


def test_a_lost_connection_shows_a_banner_and_catches_up(
    open_browser: OpenBrowser, tmp_path: Path
) -> None:
    url, port = f"sqlite:///{tmp_path / 'live.sqlite'}", free_port()
    gm = Person("mira", open_browser(width=360), "")
    with live_server(url, port) as server:
        gm.base = server.url
        session_id = signed_in_gm(server, gm)
    gm.until(lambda: gm.find("#connection-banner").is_displayed(), "the banner")
    assert "Connection lost" in gm.text("#connection-banner")
    roll_six(url, session_id, 4)  # rolled while this browser could not hear of it
    with live_server(url, port):
        gm.wait_roll(1, "1d6n (4) = 4")
        gm.until(lambda: not gm.find("#connection-banner").is_displayed(), "no banner")


class StandInStream:
    """GET .../events to the contract; it can drop its connection once, on demand."""

    def __init__(self) -> None:
        self.last_event_ids: list[str | None] = []
        self.drop = threading.Event()

    def install(self, app: FastAPI, _services: WebServices) -> None:
        # In place of the served stream, whose connections cannot be dropped on demand.
        path = "/api/v1/sessions/{session_id}/events"
        app.add_api_route(path, self.events)
        app.router.routes.insert(0, app.router.routes.pop())  # matched before the served one

    def events(
        self, session_id: str, request: Request, member: Member, web: Services
    ) -> StreamingResponse:
        last = request.headers.get("last-event-id")
        self.last_event_ids.append(last)
        after = int(last or 0)

        def frames(since: int) -> list[tuple[int, str]]:
            lines = web.app.replay(member.member, session_id).lines
            out = []
            for line in lines:
                if line.version <= since:
                    continue
                roll = (
                    None
                    if line.roll_id is None
                    else web.app.roll(member.member, session_id, line.roll_id).view
                )
                data = json.dumps({"line": line.as_json(), "roll": roll})
                out.append(
                    (line.version, f"id: {line.version}\nevent: {line.event}\ndata: {data}\n\n")
                )
            return out

        async def stream() -> AsyncIterator[str]:
            nonlocal after
            yield "retry: 200\n\n"
            while not await request.is_disconnected():
                for version, frame in await run_in_threadpool(frames, after):
                    after = version
                    yield frame
                if self.drop.is_set():
                    self.drop.clear()
                    return  # the connection drops; the browser comes back with Last-Event-ID
                yield ": heartbeat\n\n"
                await asyncio.sleep(0.2)

        return StreamingResponse(stream(), media_type="text/event-stream")


def test_the_log_follows_the_event_stream_and_resumes_after_the_last_event_seen(
    open_browser: OpenBrowser, tmp_path: Path
) -> None:
    url, stand_in = f"sqlite:///{tmp_path / 'sse.sqlite'}", StandInStream()
    gm = Person("mira", open_browser(), "")
    with live_server(url, customise=stand_in.install) as server:
        gm.base = server.url
        session_id = signed_in_gm(server, gm)
        roll_six(url, session_id, 2)
        gm.wait_roll(1, "1d6n (2) = 2")
        assert stand_in.last_event_ids == [None]  # one stream, no polling fallback
        seen = server.services.app.session("mira", session_id).version
        stand_in.drop.set()
        gm.until(lambda: len(stand_in.last_event_ids) == 2, "a reconnection")
        assert stand_in.last_event_ids[1] == str(seen)
        roll_six(url, session_id, 5)
        gm.wait_roll(2, "1d6n (5) = 5")

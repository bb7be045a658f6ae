"""Real servers for the live-stream tests, an HTTP client, and a reader of Server-Sent Events.

Every wait here is bounded: reads by the client's timeout, loops by a count or a deadline.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import uvicorn

from diceledger.infra.bootstrap import bootstrap_server
from diceledger.web.app import build_app
from diceledger.web.context import Settings, WebServices

READ_SECONDS = 10.0  # the longest a stream read may wait for a byte
START_SECONDS = 60.0  # the longest a server may take to start
STOP_SECONDS = 15.0  # the longest a server may take to stop
MOST_LINES = 2000  # the most SSE lines one read of events goes through
DICELEDGER = str(Path(sys.executable).parent / "diceledger")


@dataclass(frozen=True)
class Sse:
    """One Server-Sent Event as received (a comment-only block has only ``comments``)."""

    id: str | None = None
    event: str | None = None
    data: str | None = None
    retry: str | None = None
    comments: tuple[str, ...] = ()

    @property
    def version(self) -> int:
        assert self.id is not None, f"not an event: {self}"
        return int(self.id)

    def json(self) -> Any:
        assert self.data is not None
        return json.loads(self.data)


class SseReader:
    """Read the blocks of one open stream, a blank line ending each."""

    def __init__(self, response: httpx2.Response) -> None:
        self.response = response
        self._lines = response.iter_lines()

    def next(self) -> Sse | None:
        """Return the next block, or None when the server ended the stream."""
        fields: dict[str, str] = {}
        comments: list[str] = []
        for _ in range(MOST_LINES):
            line = next(self._lines, None)
            if line is None:
                return None
            if line == "":
                if fields or comments:
                    return Sse(
                        fields.get("id"),
                        fields.get("event"),
                        fields.get("data"),
                        fields.get("retry"),
                        tuple(comments),
                    )
                continue
            if line.startswith(":"):
                comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(":")
            assert name not in fields, f"field {name} twice in one event"
            fields[name] = value[1:] if value.startswith(" ") else value
        raise AssertionError(f"no block ended within {MOST_LINES} lines")

    def events_through(self, version: int) -> list[Sse]:
        """Return the events up to and including ``version`` (comments skipped)."""
        events: list[Sse] = []
        for _ in range(MOST_LINES):
            block = self.next()
            assert block is not None, f"the stream ended before version {version}"
            if block.id is not None:
                events.append(block)
                if block.version >= version:
                    return events
        raise AssertionError(f"version {version} did not come within {MOST_LINES} blocks")

    def next_comment(self) -> str:
        """Return the next comment, skipping any events."""
        for _ in range(MOST_LINES):
            block = self.next()
            assert block is not None, "the stream ended"
            if block.comments:
                return block.comments[0]
        raise AssertionError("no comment came")

    def ended(self, most: int = 50) -> bool:
        """Tell whether the server ends the stream within ``most`` blocks (events, comments)."""
        for _ in range(most):
            if self.next() is None:
                return True
        return False


@dataclass
class Client:
    """HTTP calls to a running server, each as a given token."""

    base_url: str
    http: httpx2.Client = field(init=False)

    def __post_init__(self) -> None:
        self.http = httpx2.Client(base_url=self.base_url, timeout=READ_SECONDS)

    def close(self) -> None:
        self.http.close()

    def post(self, path: str, token: str | None = None, body: Any = None) -> httpx2.Response:
        headers = {"Idempotency-Key": str(uuid.uuid4())}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        # A new connection each time, so a server with several workers may give any of them.
        headers["Connection"] = "close"
        return self.http.post(path, json=body, headers=headers)

    def get(self, path: str, token: str) -> httpx2.Response:
        return self.http.get(path, headers={"Authorization": f"Bearer {token}"})

    def head(self, session_id: str, token: str) -> int:
        """Return the session's stream version, from its replay."""
        lines = self.get(f"/api/v1/sessions/{session_id}/replay", token).json()["lines"]
        return int(lines[-1]["version"])

    @contextmanager
    def stream(
        self,
        session_id: str,
        token: str | None,
        last_event_id: int | None = None,
        after: int | None = None,
        cookie: bool = False,
    ) -> Iterator[SseReader]:
        """Open the session's live stream as ``token`` (a header, or the session's cookie)."""
        from diceledger.web.auth import cookie_name

        headers = {"Connection": "close"}
        cookies = {}
        if token is not None and cookie:
            cookies[cookie_name(session_id)] = token
        elif token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        params = {} if after is None else {"after": str(after)}
        # A client of its own: cookies are set per client, and each stream is one connection.
        with (
            httpx2.Client(base_url=self.base_url, timeout=READ_SECONDS, cookies=cookies) as http,
            http.stream(
                "GET", f"/api/v1/sessions/{session_id}/events", headers=headers, params=params
            ) as response,
        ):
            yield SseReader(response)


@dataclass(frozen=True)
class Table:
    """A session opened over HTTP: GM mira, players ann and bob, each with a token."""

    sid: str
    gm: str
    ann: str
    bob: str


def open_table(client: Client) -> Table:
    opened = client.post("/api/v1/sessions", body={"title": "Tomb of Ash", "name": "mira"}).json()
    sid, gm = opened["session_id"], opened["gm_token"]
    tokens = []
    for name in ("ann", "bob"):
        code = client.post(f"/api/v1/sessions/{sid}/invites", gm).json()["invite_code"]
        joined = client.post(
            f"/api/v1/sessions/{sid}/join", body={"invite_code": code, "name": name}
        )
        tokens.append(joined.json()["player_token"])
    return Table(sid, gm, *tokens)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class ThreadServer:
    """The app served by uvicorn in a thread of the test process, on its own socket."""

    services: WebServices
    server: uvicorn.Server
    thread: threading.Thread
    url: str

    def stop(self) -> None:
        self.services.live.end_streams()
        self.server.should_exit = True
        self.thread.join(STOP_SECONDS)
        self.services.app.close()
        assert not self.thread.is_alive(), "the server did not stop"


def serve_in_thread(db_url: str, settings: Settings) -> ThreadServer:
    """Start uvicorn on 127.0.0.1 (a free port) in a thread; return once it listens."""
    parts = bootstrap_server(db_url)
    services = WebServices(parts.app, parts.access, parts.requests, settings, live=parts.live)
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    config = uvicorn.Config(build_app(services), log_config=None, access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [listening]}, name="uvicorn", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + START_SECONDS
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    if not server.started:
        server.should_exit = True
        thread.join(STOP_SECONDS)
        raise AssertionError("uvicorn did not start")
    return ThreadServer(services, server, thread, f"http://127.0.0.1:{port}")


@dataclass
class ServeProcess:
    """`diceledger serve` as a child process, its log in a file."""

    process: subprocess.Popen[bytes]
    log: Path
    url: str

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def terminate(self) -> int:
        """Send SIGTERM; return the exit code (the process is killed if it hangs)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(STOP_SECONDS)
            raise AssertionError("diceledger serve did not stop on SIGTERM") from None


@contextmanager
def serve_process(
    db_url: str, log: Path, workers: int = 1, **environment: str
) -> Iterator[ServeProcess]:
    """Run `diceledger serve` on a free port until the block ends; wait for its workers."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DICELEDGER_")}
    env.update(environment)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [DICELEDGER, "--db", db_url, "serve", "--port", str(port), "--workers", str(workers)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    served = ServeProcess(process, log, f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + START_SECONDS
        while served.log_text().count("Application startup complete") < workers:
            assert process.poll() is None, f"serve exited:\n{served.log_text()}"
            assert time.monotonic() < deadline, f"serve did not start:\n{served.log_text()}"
            time.sleep(0.1)
        yield served
    finally:
        served.terminate()

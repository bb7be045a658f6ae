"""Discord's HTTP API played by a local server on 127.0.0.1, recording every request."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    """One request the fake received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeApi:
    """What the fake answers, and what it has received (in order)."""

    url: str = ""
    status: int = 200
    answer: Any = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        """Wait until ``count`` requests have arrived (a background follow-up); return all."""
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.received) >= count, timeout)
        assert len(self.received) >= count, self.received
        return list(self.received)


@contextmanager
def fake_discord_api() -> Iterator[FakeApi]:
    """Serve a fake Discord API on a free port until the block ends; yield it."""
    fake = FakeApi()

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            with fake.arrived:
                fake.received.append(Received(self.command, self.path, dict(self.headers), body))
                fake.arrived.notify_all()
            payload = json.dumps(fake.answer).encode()
            self.send_response(fake.status)
            if 300 <= fake.status < 400:
                self.send_header("Location", "/elsewhere")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _record

        def log_message(self, format: str, *args: Any) -> None:
            """Keep the test output quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="fake-discord", daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        fake.url = f"http://{host!s}:{port}/api/v10"
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

"""A player's terminal (their own config directory), the GM's side of a server's API, and
a proxy that loses, delays or replays answers on purpose."""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from diceledger.cli.main import cli
from tests.api.served import free_port

BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\n"
    b"Content-Type: application/problem+json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
)


def api(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """Call the API as a GM's script would; return the JSON answer."""
    headers = {"Content-Type": "application/json", "Idempotency-Key": f"gm-{path}-{id(body)}"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=15) as answer:
        return json.loads(answer.read())


@dataclass
class Table:
    """A session on the server, opened by its GM, who hands out invite links."""

    base: str
    session_id: str
    gm_token: str

    @classmethod
    def open(cls, base: str, title: str = "Tomb of Ash") -> Table:
        opened = api(base, "POST", "/api/v1/sessions", {"title": title, "name": "gm"})
        return cls(base, opened["session_id"], opened["gm_token"])

    def invite_link(self, base: str | None = None) -> str:
        """Return a fresh invite link, on ``base`` (default: the server itself)."""
        made = api(
            self.base, "POST", f"/api/v1/sessions/{self.session_id}/invites", {}, self.gm_token
        )
        return (base or self.base) + str(made["join_path"])

    def session(self) -> Any:
        """Return the session as the GM sees it."""
        return api(self.base, "GET", f"/api/v1/sessions/{self.session_id}", token=self.gm_token)


class Terminal:
    """One player's terminal: their own config directory, no local store in play."""

    def __init__(self, home: Path) -> None:
        self.config = home / "config"
        self.env = {
            "XDG_CONFIG_HOME": str(self.config),
            "DICELEDGER_DB": f"sqlite:///{home / 'never-used.sqlite'}",
            "DICELEDGER_SERVER": None,
            "DICELEDGER_USER": None,
            "NO_COLOR": "1",
        }
        self.outputs: list[str] = []

    def run(self, *args: str) -> Result:
        result = CliRunner(env=self.env).invoke(cli, list(args))
        self.outputs.append(result.stdout + result.stderr)
        return result

    def ok(self, *args: str) -> str:
        result = self.run(*args)
        assert result.exit_code == 0, result.output
        return result.stdout

    @property
    def token_file(self) -> Path:
        return self.config / "diceledger" / "servers.json"

    def tokens(self) -> list[str]:
        servers = json.loads(self.token_file.read_text())["servers"]
        return [entry["token"] for held in servers.values() for entry in held.values()]


def _read_request(client: socket.socket) -> bytes:
    """Read one whole HTTP request (head and a Content-Length body) from ``client``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = client.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


@dataclass
class Proxy:
    """Forwards to a server; the next few connections can be made to fail on purpose.

    ``lose``: the request reaches the server, which acts on it, but its answer is thrown
    away and the connection closed, as a network that drops mid-answer would.
    ``busy``: the proxy answers 503 with Retry-After itself, the server never sees it.
    ``record`` passes the answer on and keeps it; ``stale`` answers the kept one again, as
    a server restored from an old backup (or a cache in the way) would.
    """

    upstream_port: int
    port: int = field(default_factory=free_port)
    planned: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    recorded: bytes = b""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self, client: socket.socket) -> None:
        with client:
            request = _read_request(client)
            mode = self.planned.pop(0) if self.planned else "pass"
            self.seen.append(mode)
            if mode == "busy":
                client.sendall(BUSY)
                return
            if mode == "stale":
                client.sendall(self.recorded)
                return
            with socket.create_connection(("127.0.0.1", self.upstream_port), timeout=30) as up:
                up.sendall(request)
                answer = b""
                while chunk := up.recv(65536):
                    answer += chunk
            if mode == "record":
                self.recorded = answer
            if mode in ("pass", "record"):
                client.sendall(answer)
            # "lose": the server answered; the client never hears it.


@contextmanager
def proxy_to(upstream_port: int) -> Iterator[Proxy]:
    """Run a Proxy on a free port of 127.0.0.1 until the block ends."""
    proxy = Proxy(upstream_port)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", proxy.port))
    listener.listen(16)
    listener.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=proxy._serve, args=(client,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()

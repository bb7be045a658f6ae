"""A real `diceledger serve` on 127.0.0.1 and a free port, stopped (SIGTERM) afterwards."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

DICELEDGER = str(Path(sys.executable).with_name("diceledger"))
STARTUP_SECONDS = 30.0  # how long to wait for a slow, shared machine before giving up


@dataclass(frozen=True, slots=True)
class Server:
    """A running server: where it listens and where its log goes."""

    base_url: str
    log: Path

    def log_text(self) -> str:
        """Return what the server has logged so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")


def free_port() -> int:
    """Return a port nothing listens on now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running_server(
    db_url: str, folder: Path, *extra: str, db_after_serve: bool = False
) -> Iterator[Server]:
    """Start `diceledger --db URL serve` and yield it once /healthz answers; stop it after.

    With ``db_after_serve``, the URL is given as `diceledger serve --db URL` instead.
    """
    port = free_port()
    log = folder / "server.log"
    env = {key: value for key, value in os.environ.items() if not key.startswith("DICELEDGER_")}
    where = ["serve", "--db", db_url] if db_after_serve else ["--db", db_url, "serve"]
    command = [DICELEDGER, *where, "--host", "127.0.0.1", "--port", str(port)]
    with log.open("w", encoding="utf-8") as sink:
        process = subprocess.Popen(
            [*command, *extra], stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=folder
        )
    server = Server(f"http://127.0.0.1:{port}", log)
    try:
        _wait_until_healthy(process, server)
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_healthy(process: subprocess.Popen[bytes], server: Server) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"diceledger serve exited early:\n{server.log_text()}")
        try:
            with urllib.request.urlopen(f"{server.base_url}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    raise AssertionError(f"diceledger serve did not answer /healthz:\n{server.log_text()}")

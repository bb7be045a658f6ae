"""A real `diceledger serve` SIGKILLed again and again while clients roll and retry.

Each kill takes the whole server (every worker) down at a moment chosen at random while a
few clients roll, each retrying its Idempotency-Key until it gets an answer. Whatever the
kill interrupted, after each restart the next write succeeds (no session refusing writes
as tampered, no `db adopt`), and at the end: every key got one answer however often it was
retried, every acknowledged roll is in the log, no roll is in it twice or without a key,
and the server's verify passes. The kill moments are random; the assertions hold for every
outcome. `CRASH_KILLS` runs more kills by hand (the issue asks for 30 per backend once).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.api.served import DICELEDGER, STARTUP_SECONDS, free_port
from tests.infra.support import database_url

pytestmark = pytest.mark.slow

KILLS = int(os.environ.get("CRASH_KILLS", "8"))
CLIENTS = ("mira", "ann", "bob")
ROLL = {"kind": "check", "expression": "1d20+1", "target": 11}
ANSWER_SECONDS = 60.0  # how long a client retries one key before the test gives up
TEST_SECONDS = 60.0 + 15.0 * KILLS  # the whole loop's bound


class Killable:
    """`diceledger serve` in its own process group, so one SIGKILL takes every worker."""

    def __init__(self, db_url: str, folder: Path, workers: int) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._folder = folder
        self._command = [
            *(DICELEDGER, "--db", db_url, "serve", "--host", "127.0.0.1"),
            *("--port", str(self.port), "--workers", str(workers)),
        ]
        self._env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("DICELEDGER_")},
            "DICELEDGER_SIGNING_KEY": str(folder / "signing.key"),
            "DICELEDGER_SIGNED_HEADS": str(folder / "signed-heads"),
            "DICELEDGER_ROLLS_PER_MINUTE": "1000000",
        }
        self._process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        log = (self._folder / f"server-{self.starts}.log").open("wb")
        with log:
            self._process = subprocess.Popen(
                self._command, stdout=log, stderr=subprocess.STDOUT, env=self._env,
                cwd=self._folder, start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise AssertionError(f"serve exited early:\n{self.log_text()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        raise AssertionError(f"serve did not answer /healthz:\n{self.log_text()}")

    def kill(self) -> None:
        """SIGKILL every process of the server at once, as a power cut would."""
        assert self._process is not None
        os.killpg(self._process.pid, signal.SIGKILL)
        self._process.wait(timeout=30)

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait()

    def log_text(self) -> str:
        logs = sorted(self._folder.glob("server-*.log"))
        return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in logs)


def call(
    base_url: str, method: str, path: str, token: str | None = None,
    body: object = None, key: str | None = None,
) -> tuple[int, str]:  # fmt: skip
    """Send one request; (0, reason) when no answer came (the server was down or killed)."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if key is not None:
        headers["Idempotency-Key"] = key
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base_url + path, data, headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        return 0, str(error)  # refused, reset, or an answer cut short by the kill


@dataclass
class Client:
    """One player rolling key after key, retrying each key until it is answered."""

    name: str
    token: str
    answers: dict[str, list[str]] = field(default_factory=dict)  # key -> every 2xx body
    refusals: list[tuple[str, int, str]] = field(default_factory=list)  # answers not 2xx

    def play(self, server: Killable, session: str, stop: threading.Event) -> None:
        path = f"/api/v1/sessions/{session}/rolls"
        for number in range(100_000):
            if stop.is_set():
                return
            key = f"{self.name}-{number}"
            deadline = time.monotonic() + ANSWER_SECONDS
            while time.monotonic() < deadline:
                status, text = call(server.base_url, "POST", path, self.token, ROLL, key)
                if 200 <= status < 300:
                    self.answers.setdefault(key, []).append(text)
                    if len(self.answers[key]) >= 2 or random.random() < 0.5:
                        break  # answered (sometimes asked twice: the same answer again)
                    continue
                if status not in (0, 503):  # anything but "the server is down"
                    self.refusals.append((key, status, text))
                    break
                time.sleep(0.05)
            else:
                self.refusals.append((key, 0, "no answer in time"))
                return


@pytest.fixture(
    params=[
        pytest.param(("sqlite", 1), id="sqlite"),
        pytest.param(("postgres", 2), id="postgres-2-workers", marks=pytest.mark.postgres),
    ]
)
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Killable]:
    backend, workers = request.param
    url = database_url(backend, request)
    assert url is not None
    served = Killable(url, tmp_path, workers)
    served.start()
    try:
        yield served
    finally:
        served.stop()


def open_table(server: Killable) -> tuple[str, dict[str, str]]:
    status, text = call(
        server.base_url, "POST", "/api/v1/sessions", None, {"title": "Crash", "name": "mira"}
    )
    assert status == 201, text
    opened = json.loads(text)
    session, tokens = opened["session_id"], {"mira": opened["gm_token"]}
    for name in CLIENTS[1:]:
        path = f"/api/v1/sessions/{session}/invites"
        status, text = call(server.base_url, "POST", path, tokens["mira"], {})
        assert status in (200, 201), text
        code = json.loads(text)["invite_code"]
        joined = {"invite_code": code, "name": name}
        status, text = call(
            server.base_url, "POST", f"/api/v1/sessions/{session}/join", None, joined
        )
        assert status == 201, text
        tokens[name] = json.loads(text)["player_token"]
    return session, tokens


def test_sigkills_during_retried_rolls_lose_nothing_double_nothing_and_lock_nothing(
    server: Killable,
) -> None:
    session, tokens = open_table(server)
    clients = [Client(name, tokens[name]) for name in CLIENTS]
    stop = threading.Event()
    players = [
        threading.Thread(target=c.play, args=(server, session, stop), daemon=True) for c in clients
    ]
    for player in players:
        player.start()
    moments = random.Random()
    ended_by = time.monotonic() + TEST_SECONDS
    after_restart: list[tuple[int, str]] = []
    for kill in range(KILLS):
        assert time.monotonic() < ended_by, f"only {kill} kills in {TEST_SECONDS} s"
        time.sleep(moments.uniform(0.05, 0.6))
        server.kill()
        server.start()
        # The first write after the restart, whatever the kill interrupted: it succeeds.
        path = f"/api/v1/sessions/{session}/rolls"
        after_restart.append(
            call(server.base_url, "POST", path, tokens["mira"], ROLL, f"restart-{kill}")
        )
    stop.set()
    for player in players:
        player.join(timeout=ANSWER_SECONDS + 30)
    assert not any(player.is_alive() for player in players)

    assert [status for status, _ in after_restart] == [201] * KILLS, after_restart
    refusals = [refusal for client in clients for refusal in client.refusals]
    assert refusals == [], refusals  # no 409 "not answered yet", no log-tampered
    answers = {key: bodies for client in clients for key, bodies in client.answers.items()}
    answers |= {f"restart-{n}": [text] for n, (_, text) in enumerate(after_restart)}
    assert all(len(set(bodies)) == 1 for bodies in answers.values())  # one answer per key
    acknowledged = sorted(json.loads(bodies[0])["roll_id"] for bodies in answers.values())
    status, text = call(server.base_url, "GET", f"/api/v1/sessions/{session}", tokens["mira"])
    assert status == 200, text
    logged = sorted(roll["roll_id"] for roll in json.loads(text)["rolls"])
    # Nothing acknowledged lost, nothing doubled: a roll in the log only for a key answered.
    assert logged == acknowledged
    assert len(acknowledged) >= KILLS
    status, text = call(
        server.base_url, "GET", f"/api/v1/sessions/{session}/verify", tokens["mira"]
    )
    assert status == 200 and json.loads(text)["ok"] is True, text

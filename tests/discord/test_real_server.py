"""A real `diceledger serve` on 127.0.0.1, driven by the fake Discord, as Discord would."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.discord.conftest import ANN, MIRA, FakeDiscord, public_hex
from tests.discord.fake_api import fake_discord_api
from tests.discord.test_table import verify_with_cli

DICELEDGER = str(Path(sys.executable).parent / "diceledger")


def free_port() -> int:
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def post_to(base: str) -> Any:
    def post(body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
        request = urllib.request.Request(
            f"{base}/discord/interactions", data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    return post


def wait_until_up(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert server.poll() is None, "the server stopped before it answered"
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail("the server did not answer /healthz within a minute")


@contextmanager
def serving(url: str, env: dict[str, str]) -> Iterator[str]:
    """Run `diceledger serve` on a free port until the block ends; yield its base URL."""
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DICELEDGER_")}
    server = subprocess.Popen(
        [DICELEDGER, "--db", url, "serve", "--port", str(port)],
        env={**clean, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, server)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_a_session_played_through_a_real_server_verifies(sqlite_url: str) -> None:
    key = Ed25519PrivateKey.generate()
    with fake_discord_api() as webhooks:
        env = {
            "DICELEDGER_DISCORD_PUBLIC_KEY": public_hex(key),
            "DICELEDGER_PUBLIC_URL": "https://dice.example",
            "DICELEDGER_DISCORD_API_URL": webhooks.url,
        }
        with serving(sqlite_url, env) as base:
            discord = FakeDiscord(post_to(base), key)
            assert discord.deliver({"id": "1", "type": 1}) == (200, {"type": 1})
            forger = Ed25519PrivateKey.generate()
            assert discord.deliver({"id": "1", "type": 1}, key=forger)[0] == 401
            started = discord.run(MIRA, "start", title="Over the wire")
            session_id = started["data"]["content"].split("(session `")[1].split("`")[0]
            invite = discord.run(MIRA, "invite")["data"]["content"]
            code = invite.split("\n`", 1)[1].split("`", 1)[0]
            discord.run(ANN, "join", code=code)
            check = discord.run(ANN, "check", expression="1d20+5", target=15, adv="1:flank")
            assert check["data"]["content"].count("~~") == 2
            blind = discord.run(MIRA, "blind", expression="1d20")
            assert blind["data"]["flags"] == 64
            (notice,) = webhooks.wait_for(1)  # posted after the answer, by a background task
            token = discord.sent[-1]["token"]
            assert (notice.method, notice.path) == (
                "POST",
                f"/api/v10/webhooks/{discord.sent[-1]['application_id']}/{token}",
            )
            said, checkpoint = notice.body["content"].split("\n")
            assert said == "**#2** · the GM rolled blind" and checkpoint.startswith("checkpoint #")
            assert "ended" in discord.run(MIRA, "end")["data"]["content"]
    result = verify_with_cli(sqlite_url, session_id)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rolls"] == 2

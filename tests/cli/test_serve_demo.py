"""``diceledger serve --demo``: a played session, and links that sign people in without tokens."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from diceledger.cli.main import cli
from diceledger.cli.serve_demo import DemoTable, describe, prepare_demo
from diceledger.infra.bootstrap import bootstrap_server
from diceledger.web.app import build_app
from diceledger.web.context import WebServices

BASE = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoTable]:
    with pytest.MonkeyPatch.context() as patch:
        # prepare_demo points both keys at its own folder; restored after the module.
        patch.setenv("DICELEDGER_SEED_KEY", "")
        patch.setenv("DICELEDGER_SIGNING_KEY", "")
        table = prepare_demo(BASE)
        try:
            yield table
        finally:
            shutil.rmtree(table.folder, ignore_errors=True)


def signed_in(demo: DemoTable, link: str) -> str:
    parts = bootstrap_server(demo.url)
    client = TestClient(build_app(WebServices(parts.app, parts.access, parts.requests)))
    try:
        path = link.removeprefix(BASE)
        page = client.get(path).text
        token = re.search(r'name="form_token" value="([^"]+)"', page)
        assert token is not None
        answer = client.post(path, data={"form_token": token.group(1)}, follow_redirects=True)
        assert answer.status_code == 200
        return answer.text
    finally:
        parts.app.close()


def test_the_demo_links_sign_in_the_gm_and_a_player_by_one_time_codes(demo: DemoTable) -> None:
    assert re.fullmatch(rf"{BASE}/sign-in/dls_[\w-]+", demo.gm_link)
    assert re.fullmatch(rf"{BASE}/join/dli_[\w-]+", demo.invite_link)
    gm_page = signed_in(demo, demo.gm_link)
    assert "The Sunken Crypt" in gm_page and "Signed in as <strong>mira</strong> (GM)" in gm_page
    assert "Signed in as <strong>ann</strong>" in signed_in(demo, demo.player_link)
    words = "\n".join(describe(demo))
    assert demo.gm_link in words and demo.invite_link in words and "dlt_" not in words


def test_the_demo_session_is_already_played(demo: DemoTable) -> None:
    parts = bootstrap_server(demo.url)
    try:
        rolls = parts.app.session("mira", demo.session_id).rolls
    finally:
        parts.app.close()
    assert len(rolls) >= 9


def test_the_demo_needs_a_real_port_for_its_links() -> None:
    result = CliRunner().invoke(cli, ["serve", "--demo", "--port", "0"])
    assert result.exit_code == 2 and "give --port N" in result.output


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def answers(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_served_demo_says_where_its_store_is_and_removes_it_when_stopped(
    stop: signal.Signals, tmp_path: Path
) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DICELEDGER_")}
    env |= {"TMPDIR": str(tmp_path), "HOME": str(tmp_path), "NO_COLOR": "1"}
    command = [str(Path(sys.executable).parent / "diceledger"), "serve", "--demo"]
    log = tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen([*command, "--port", str(port)], env=env, stdout=out)
        try:
            deadline = time.monotonic() + 60
            while not answers(port):
                assert server.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
            lines = log.read_text().splitlines()
            (where,) = [line for line in lines if "store" in line and str(tmp_path) in line]
            store = Path(where.split(": ")[-1])
            assert store.parent == tmp_path and (store / "demo.sqlite").exists()
            server.send_signal(stop)
            server.wait(timeout=60)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    assert list(tmp_path.glob("diceledger-serve-demo-*")) == []
    links = [line for line in lines if "/sign-in/" in line or "/join/" in line]
    assert len(links) == 3
    assert len({line.index("http://") for line in links}) == 1, links  # one column of links

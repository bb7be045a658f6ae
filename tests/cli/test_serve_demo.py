"""``diceledger serve --demo``: a played session, and links that sign people in without tokens."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator

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

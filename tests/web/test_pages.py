"""The pages over HTTP, without a browser: sign-in flows, cookies, CSRF, headers, escaping."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from html import escape
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from diceledger.web.auth import cookie_name
from diceledger.web.security import CONTENT_SECURITY_POLICY
from diceledger.web.templating import TEMPLATE_DIR
from tests.api.conftest import Api, build_api

EVIL = "<script>alert('x')</script>"
URI_COMPONENT = "-_.!~*'()"  # what encodeURIComponent leaves as it is


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    built = build_api(f"sqlite:///{tmp_path / 'pages.sqlite'}")
    try:
        with built.client:
            yield built
    finally:
        built.services.app.close()


def browser(api: Api, https: bool = False) -> TestClient:
    """Return a fresh client with its own cookie jar: one more person's browser."""
    base = "https://testserver" if https else "http://testserver"
    return TestClient(api.client.app, base_url=base, follow_redirects=False)


def form_token(page: str) -> str:
    found = re.search(r'name="form_token" value="([^"]+)"', page)
    assert found is not None, "the page has no form token"
    return found.group(1)


def open_session(client: TestClient, title: str = "Tomb of Ash", name: str = "mira") -> str:
    token = form_token(client.get("/").text)
    answer = client.post("/new", data={"form_token": token, "title": title, "name": name})
    assert answer.status_code == 303, answer.text
    return answer.headers["location"].removeprefix("/s/")


def invite_path(client: TestClient, session_id: str) -> str:
    made = client.post(
        f"/api/v1/sessions/{session_id}/invites", headers={"X-Requested-With": "diceledger"}
    )
    assert made.status_code == 201, made.text
    path: str = made.json()["join_path"]
    return path


def join(client: TestClient, path: str, name: str) -> str:
    token = form_token(client.get(path).text)
    answer = client.post(path, data={"form_token": token, "name": name, "client_seed": ""})
    assert answer.status_code == 303, answer.text
    return answer.headers["location"]


def test_opening_a_session_signs_the_gm_in_by_an_httponly_strict_cookie(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    (set_cookie,) = [
        h for h in gm.cookies.jar if h.name == cookie_name(session_id)
    ]  # the token is in the cookie, and only there
    assert set_cookie.value is not None and set_cookie.value.startswith("dlt_")
    table = gm.get(f"/s/{session_id}")
    assert table.status_code == 200 and "Tomb of Ash" in table.text
    assert "GM panel" in table.text and set_cookie.value not in table.text


def test_a_cookie_is_httponly_samesite_strict_and_secure_over_https(api: Api) -> None:
    gm = browser(api, https=True)
    token = form_token(gm.get("/").text)
    answer = gm.post("/new", data={"form_token": token, "title": "T", "name": "mira"})
    header = next(
        h for h in answer.headers.get_list("set-cookie") if h.startswith("dl_") and "dlt_" in h
    )
    assert {"HttpOnly", "Secure", "SameSite=strict", "Path=/"} <= {
        part.strip() for part in header.split(";")
    }
    assert "dlt_" not in answer.headers["location"]


def test_the_invite_code_alone_opens_the_join_page_and_joins_once(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    path = invite_path(gm, session_id)
    assert re.fullmatch(r"/join/dli_[\w-]+", path)
    ann = browser(api)
    assert "Join “Tomb of Ash”" in ann.get(path).text
    assert join(ann, path, "ann") == f"/s/{session_id}"
    assert ann.get(f"/s/{session_id}").status_code == 200
    spent = browser(api).get(path)
    assert spent.status_code == 403 and "This invite link cannot be used again" in spent.text


def test_a_taken_name_is_shown_beside_the_name_field_and_keeps_the_invite(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    path = invite_path(gm, session_id)
    ann = browser(api)
    token = form_token(ann.get(path).text)
    taken = ann.post(path, data={"form_token": token, "name": "mira"})
    assert taken.status_code == 422
    assert 'id="name-error" role="alert">mira is already in session' in taken.text
    assert join(ann, path, "ann") == f"/s/{session_id}"


def test_a_form_posted_from_another_site_is_refused(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    path = invite_path(gm, session_id)
    forger = browser(api)  # never loaded the form: no form cookie, a guessed token
    refused = forger.post(path, data={"form_token": "guess", "name": "mallory"})
    assert refused.status_code == 403 and "not sent from this site" in refused.text
    members = api.services.app.members(session_id)
    assert "mallory" not in members
    assert browser(api).get(path).status_code == 200  # the invite is still good


def test_a_change_riding_on_the_cookie_needs_the_pages_own_header(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    bare = gm.post(f"/api/v1/sessions/{session_id}/invites")
    assert bare.status_code == 403 and "X-Requested-With" in bare.json()["detail"]
    assert gm.get(f"/api/v1/sessions/{session_id}").status_code == 200  # reads need none
    assert invite_path(gm, session_id).startswith("/join/")


def test_a_sign_in_link_is_not_spent_by_looking_at_it(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    made = gm.post(
        f"/api/v1/sessions/{session_id}/sign-in-codes",
        headers={"X-Requested-With": "diceledger"},
    ).json()
    phone = browser(api)
    path = made["sign_in_path"]
    assert phone.get(path).status_code == 200 and phone.get(path).status_code == 200
    answer = phone.post(path, data={"form_token": form_token(phone.get(path).text)})
    assert answer.status_code == 303 and answer.headers["location"] == f"/s/{session_id}"
    assert "Signed in as <strong>mira</strong> (GM)" in phone.get(f"/s/{session_id}").text
    again = browser(api)
    assert again.get(path).status_code == 403
    # A sign-in code is no invite, and an invite no sign-in code.
    assert browser(api).get(path.replace("/sign-in/", "/join/")).status_code == 403


def test_every_answer_carries_the_content_security_policy(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    paths = [
        "/",
        f"/s/{session_id}",
        f"/s/{session_id}/gm",
        f"/s/{session_id}/replay",
        f"/s/{session_id}/stats",
        f"/s/{session_id}/verify",
        "/static/table-page.js",
        f"/api/v1/sessions/{session_id}",
        "/s/nope",
        "/no-such-page",
    ]
    for path in paths:
        answer = gm.get(path)
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY, path
        assert answer.headers["referrer-policy"] == "no-referrer", path
    assert "default-src 'self'" in CONTENT_SECURITY_POLICY


def test_only_the_verify_pages_worker_may_compile_webassembly(api: Api) -> None:
    anyone = browser(api)
    worker = anyone.get("/static/verify-worker.js")
    assert worker.status_code == 200
    policy = worker.headers["content-security-policy"]
    assert policy == CONTENT_SECURITY_POLICY + "; script-src 'self' 'wasm-unsafe-eval'"
    assert "unsafe" not in CONTENT_SECURITY_POLICY
    page = anyone.get("/static/verify.html")
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_the_server_serves_the_python_the_verify_page_runs(api: Api) -> None:
    answer = browser(api).get("/static/diceledger-verify.zip")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/zip"
    names = set(zipfile.ZipFile(io.BytesIO(answer.content)).namelist())
    assert {"diceledger/web/in_browser.py", "diceledger/domain/session/decide.py"} <= names
    # The store's database and the server stay out: neither runs in a browser.
    assert not {"diceledger/infra/store/sql.py", "diceledger/web/app.py"} & names


def test_templates_hold_no_inline_script_style_or_handler() -> None:
    for template in TEMPLATE_DIR.glob("*.html"):
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), template.name
        assert not re.search(r"<style|\sstyle=|\son[a-z]+=", text), template.name
        assert not re.search(r"(src|href)=\"(https?:)?//", text), template.name


def test_a_hostile_name_and_title_are_shown_as_text(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm, title=EVIL, name="mira")
    path = invite_path(gm, session_id)
    join(browser(api), path, EVIL)
    for page in (f"/s/{session_id}", f"/s/{session_id}/gm", f"/s/{session_id}/replay"):
        text = gm.get(page).text
        assert EVIL not in text, page
        assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in text, page


def test_a_player_is_refused_the_gm_panel(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    ann = browser(api)
    join(ann, invite_path(gm, session_id), "ann")
    panel = ann.get(f"/s/{session_id}/gm")
    assert panel.status_code == 403 and "only a GM may manage members" in panel.text
    assert "GM panel" not in ann.get(f"/s/{session_id}").text


def test_a_stranger_is_told_to_ask_for_an_invite(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    page = browser(api).get(f"/s/{session_id}")
    assert page.status_code == 401 and "Ask the GM for an invite link" in page.text
    assert page.headers["content-type"].startswith("text/html")


def test_a_link_followed_from_another_site_reloads_to_send_the_strict_cookie(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    # SameSite=Strict: a navigation another site starts arrives without the cookie.
    cross = browser(api).get(f"/s/{session_id}", headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 200 and 'http-equiv="refresh" content="0"' in cross.text
    same = browser(api).get(f"/s/{session_id}", headers={"Sec-Fetch-Site": "same-origin"})
    assert same.status_code == 401


def test_the_replay_page_stops_at_a_position_or_a_time(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    whole = gm.get(f"/s/{session_id}/replay").text
    positions = [int(p) for p in re.findall(r'data-position="(\d+)"', whole)]
    assert len(positions) == 3  # started, the GM joined, the seed committed
    two = gm.get(f"/s/{session_id}/replay", params={"until_position": positions[1]}).text
    assert re.findall(r'data-position="(\d+)"', two) == [str(p) for p in positions[:2]]
    before = gm.get(f"/s/{session_id}/replay", params={"at": "2000-01-01T00:00"}).text
    assert "Events up to then (0)" in before
    wrong = gm.get(f"/s/{session_id}/replay", params={"at": "yesterday"})
    assert wrong.status_code == 422 and "2025-05-01T20:30" in wrong.text


def panel_path(session_id: str, name: str, action: str) -> str:
    """The path the GM panel posts to: the name as encodeURIComponent writes it."""
    return f"/api/v1/sessions/{session_id}/members/{quote(name, safe=URI_COMPONENT)}/{action}"


@pytest.mark.parametrize("name", ["..", "."])
def test_a_name_no_link_can_carry_is_refused_at_join_and_keeps_the_invite(
    api: Api, name: str
) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    path = invite_path(gm, session_id)
    player = browser(api)
    refused = player.post(
        path, data={"form_token": form_token(player.get(path).text), "name": name}
    )
    assert refused.status_code == 422
    assert "cannot be &#39;.&#39; or &#39;..&#39;" in refused.text
    assert name not in api.services.app.members(session_id)
    assert join(player, path, "ann") == f"/s/{session_id}"


@pytest.mark.parametrize(
    "name",
    ["50%", "a?b", "c#d", "e\\f", "g&h", "i j", "...", ".x", "a/b", "../x", "y/..", "z/revoke"],
)
def test_any_allowed_name_is_revoked_and_promoted_from_the_gm_panel(api: Api, name: str) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    join(browser(api), invite_path(gm, session_id), name)
    assert f'data-name="{escape(name)}"' in gm.get(f"/s/{session_id}/gm").text
    headers = {"X-Requested-With": "diceledger"}
    revoked = gm.post(panel_path(session_id, name, "revoke"), headers=headers)
    assert revoked.status_code == 200 and revoked.json()["name"] == name, revoked.text
    promoted = gm.post(panel_path(session_id, name, "co-gm"), headers=headers)
    assert promoted.status_code == 200 and promoted.json()["role"] == "gm", promoted.text


def test_r6_the_gm_panels_review_names_each_dies_side_round_and_typist(api: Api) -> None:
    gm = browser(api)
    session_id = open_session(gm)
    people = {name: browser(api) for name in ("ann", "bob")}
    for name, client in people.items():
        join(client, invite_path(gm, session_id), name)
    rolls = f"/api/v1/sessions/{session_id}/rolls"
    page = {"X-Requested-With": "diceledger"}
    duel = {
        "kind": "opposed",
        "expression": "1d20+30",
        "vs": {"name": "bob", "expression": "1d20"},
        "no_explode": True,  # so bob never reaches ann's 47
        "faces": [17],
    }
    made = people["ann"].post(rolls, json=duel, headers=page | {"Idempotency-Key": "duel"})
    assert made.status_code == 201, made.text
    dispute = {"reason": "who typed what?"}
    key = {"Idempotency-Key": "dispute"}
    opened = people["bob"].post(f"{rolls}/1/dispute", json=dispute, headers=page | key)
    assert opened.status_code == 201, opened.text
    panel = gm.get(f"/s/{session_id}/gm").text
    assert "<td>ann, round 1</td>" in panel and "<td>bob, round 1</td>" in panel
    assert "typed in by ann (cannot be verified)" in panel
    assert "typed in by bob" not in panel  # bob's die is the server's

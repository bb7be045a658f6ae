"""The matrix's page rows, called as a browser calls them.

A browser's credential is the session's HttpOnly cookie, never a header; a form is posted
only after its page was loaded, with the form token that page set; a refusal is an HTML
page with the status the route table promises, never problem+json. Another session's
member brings the cookie their own session set them and, to test the token itself, the
same token planted in this session's cookie.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from fastapi.testclient import TestClient
from markupsafe import escape

from diceledger.web.auth import cookie_name
from diceledger.web.security import FORM_FIELD
from diceledger.web.templating import marked
from tests.api.route_table import Row
from tests.api.scene import Caller, Scene

PAGE_ERROR_TYPE = "text/html"
FORM_TOKEN = re.compile(rf'name="{FORM_FIELD}" value="([^"]+)"')
TIMELINE_LINE = re.compile(
    r'<li class="timeline-line([^"]*)" data-position="(\d+)" data-event="([^"]+)"'
)
HIDDEN_EVENTS = frozenset({"Hidden", "RollRequested"})  # what a player may read of one
COOKIE_DOMAIN = "testserver.local"  # where the test client keeps the cookies its server sets


@dataclass(frozen=True)
class PageAnswer:
    """What a page call answered, and the page a followed redirect led to."""

    status: int
    content_type: str
    text: str
    headers: str
    location: str = ""
    signed_in: str = ""  # the cookie a form's answer set: the session it signs in to
    landed: str = ""  # the page the redirect led to, as the browser shows it


def browser(scene: Scene, caller: Caller) -> TestClient:
    """Return a browser of its own holding ``caller``'s cookies, if any."""
    client = TestClient(scene.api.client.app, follow_redirects=False)
    token = scene.tokens[caller]
    if token is not None:
        client.cookies.set(cookie_name(scene.sid), token, COOKIE_DOMAIN)
    if caller is Caller.OTHER_SESSION:
        assert token is not None
        client.cookies.set(cookie_name(scene.other_sid), token, COOKIE_DOMAIN)
    return client


def code_of(scene: Scene, row: Row, caller: Caller) -> str:
    """Return the code a form route needs: a fresh invite, or a member's sign-in code."""
    if "/join/" in row.path:
        return scene.invite()
    member = caller if caller.is_member else Caller.PLAYER
    scene.sign_out_others(member)  # five sign-ins would sign out the scene's own token
    made = scene.api.post(f"/api/v1/sessions/{scene.sid}/sign-in-codes", scene.tokens[member])
    assert made.status_code == 201, made.text
    path: str = made.json()["sign_in_path"]
    return path.removeprefix("/sign-in/")


def page_path(scene: Scene, row: Row, caller: Caller) -> str:
    """Return the address the browser visits for ``row``."""
    values: dict[str, str] = {"session_id": scene.sid, "path": "api.js"}
    if "{code}" in row.path:
        values["code"] = code_of(scene, row, caller)
    if row.path.endswith("/campaign"):
        scene.campaign()  # the page shows the campaign the session belongs to
    return row.path.format(**values)


def form_token(page: str) -> str:
    """Return the form token a form page carries."""
    found = FORM_TOKEN.search(page)
    assert found is not None, "the form page holds no form token"
    return found.group(1)


def form_fields(scene: Scene, row: Row) -> dict[str, str]:
    """Return what the browser types into a form besides its token."""
    if row.path == "/new":
        return {"title": f"Opened from the form {scene.number()}", "name": "founder"}
    if row.path == "/join/{code}":
        return {"name": f"joiner-{scene.number()}", "client_seed": ""}
    return {}


def call_page(
    scene: Scene, row: Row, caller: Caller, path: str, forged: bool = False
) -> PageAnswer:
    """Visit ``path`` as ``caller``'s browser; post a form only after loading its page.

    A ``forged`` form is one another site posts: its browser never loaded the form, so it
    holds no form cookie and can only guess the token.
    """
    client = browser(scene, caller)
    if row.method == "GET":
        return _answer(client.get(path, headers={"Sec-Fetch-Site": "same-origin"}))
    form_page = "/new" if row.path == "/new" else path
    token = "guessed" if forged else form_token(client.get(form_page).text)
    data = {FORM_FIELD: token, **form_fields(scene, row)}
    answer = _answer(client.post(path, data=data))
    if answer.status != 303:
        return answer
    session_id = answer.location.removeprefix("/s/")
    signed_in = session_id if client.cookies.get(cookie_name(session_id)) else ""
    landed = client.get(answer.location).text
    return PageAnswer(
        answer.status,
        answer.content_type,
        answer.text,
        answer.headers,
        answer.location,
        signed_in,
        landed,
    )


class _Response(Protocol):
    """What the test client's answer offers (its HTTP library varies with the version)."""

    @property
    def status_code(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def headers(self) -> Mapping[str, str]: ...


def _answer(response: _Response) -> PageAnswer:
    return PageAnswer(
        response.status_code,
        response.headers.get("content-type", ""),
        response.text,
        str(response.headers),
        response.headers.get("location", ""),
    )


def hidden_roll_shown(scene: Scene, page: str) -> list[str]:
    """Return what a page shows a player of the scene's hidden blind roll beyond its request.

    The GM's own timeline says which positions are that roll's, and how the GM reads
    them; a player's page must mark those lines hidden and hold none of the GM's texts.
    """
    gm_view = scene.api.get(f"/api/v1/sessions/{scene.sid}/replay", scene.gm).json()
    mine = [line for line in gm_view["lines"] if line["roll_id"] == scene.blind_roll]
    positions = {str(line["position"]) for line in mine}
    found = []
    for classes, position, event in TIMELINE_LINE.findall(page):
        if position in positions and ("hidden-roll" not in classes or event not in HIDDEN_EVENTS):
            found.append(f"hidden roll's line at {position} shown as {event}")
    for line in mine:
        for shown in {str(marked(line["text"])), str(escape(line["text"]))}:
            if shown in page:
                found.append(f"hidden roll's text {line['text'][:40]!r}")
    return found

"""Every route x every kind of caller, as the table in docs/api.md says; refusals change nothing.

The routes and who may call them come from the documentation's own table (route_table.py),
so a route added without a row, or a row that promises more than the code does, fails
here. Every answer is also searched for what no caller may receive: a token, a seed not yet
revealed, another session's data, and (for players) a hidden blind roll's details.
The pages are called as a browser calls them (page_calls.py): by cookie, forms with their
form token, refusals as HTML pages with the status the API would answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from starlette.applications import Starlette
from starlette.routing import BaseRoute
from starlette.types import Message, Scope

from diceledger.domain.projections.timeline import HIDDEN_EVENT
from diceledger.web.security import FORM_FIELD
from tests.api.conftest import Api
from tests.api.page_calls import (
    PAGE_ERROR_TYPE,
    PageAnswer,
    browser,
    call_page,
    form_token,
    hidden_roll_shown,
    page_path,
)
from tests.api.route_table import Row, Who, documented_routes, served_routes
from tests.api.scene import CHECK, NAMES, Caller, Scene, build_scene, snapshot

ROWS = documented_routes()
SESSION = "/api/v1/sessions/{session_id}"
ROLL = SESSION + "/rolls/{roll_id}"
CAMPAIGNS = "/api/v1/campaigns"
CAMPAIGN = CAMPAIGNS + "/{campaign_id}"
EVENTS = ("GET", SESSION + "/events")

# Documented routes still being built on another branch: allowed to be missing, and
# checked like every other route once they are served.
PENDING: set[tuple[str, str]] = set()
# The pages answer HTML and sign in by cookie with form tokens: they are called as a
# browser calls them (tests/api/page_calls.py).
PAGES = {
    row.route
    for row in documented_routes()
    if not row.path.startswith(("/api/", "/discord/", "/healthz", "/openapi.json"))
}
# Routes whose answer never ends: only their status is read.
STREAMS = {EVENTS}
# Routes that change the session for good: each caller gets a scene of its own (a
# session belongs to one campaign only).
FRESH_SCENE = {("POST", SESSION + "/end"), ("POST", CAMPAIGNS)}

Expected = tuple[int, str]  # status and problem type of a refusal
UNAUTHENTICATED: Expected = (401, "/problems/unauthenticated")
REFUSED = {
    Caller.NO_TOKEN: UNAUTHENTICATED,
    Caller.UNKNOWN: UNAUTHENTICATED,
    Caller.REVOKED: UNAUTHENTICATED,
    Caller.OTHER_SESSION: (404, "/problems/unknown-session"),
}
FORBIDDEN: Expected = (403, "/problems/forbidden")
# Finer rules the session decides, beyond the `who` column (its notes say them). A
# campaign route has no session in its path: the token of a session outside the
# campaign finds no campaign, as an unknown id would.
NO_CAMPAIGN: Expected = (404, "/problems/not-found")
EXCEPTIONS: dict[tuple[tuple[str, str], Caller], Expected] = {
    (("GET", CAMPAIGN), Caller.OTHER_SESSION): NO_CAMPAIGN,
    (("GET", CAMPAIGN + "/stats"), Caller.OTHER_SESSION): NO_CAMPAIGN,
    (("POST", CAMPAIGN + "/sessions"), Caller.OTHER_SESSION): NO_CAMPAIGN,
    # The matrix reveals a GM's blind roll: a player reveals only their own self roll
    # (tests/api/test_roll_modes_api.py calls it in every mode, as every role).
    (("POST", ROLL + "/reveal"), Caller.PLAYER): FORBIDDEN,
}
# What a player may learn of a hidden blind roll: that it exists, who rolled, where it is,
# and (a sealed export line) each event's link in the chain.
HIDDEN_ROLL_KEYS = frozenset(
    {"session_id", "roll_id", "roller", "mode", "blind", "status"}
    | {"position", "version", "recorded_at", "actor", "event", "hidden", "text", "detail"}
    | {"stream_id", "stream_version", "sealed", "prev_hash", "hash"}
)


# The matrix's server has no Discord application configured: the endpoint is not there
# for anyone, whatever token they bring (tests/discord covers the signed requests).
NO_DISCORD: Expected = (404, "/problems/not-found")


def expected(row: Row, caller: Caller) -> Expected | None:
    """Return the refusal ``caller`` gets on ``row``, or None when the call succeeds."""
    if row.who is Who.DISCORD:
        return NO_DISCORD
    if row.who in (Who.ANYONE, Who.INVITE_HOLDER):
        return None  # a token is ignored; the invite code is the credential
    if (row.route, caller) in EXCEPTIONS:
        return EXCEPTIONS[(row.route, caller)]
    if caller in REFUSED:
        return REFUSED[caller]
    if row.who is Who.GM and caller is Caller.PLAYER:
        return FORBIDDEN
    return None


@dataclass(frozen=True)
class Call:
    """What one request needs beyond the route: path values, body and query."""

    path: dict[str, str | int] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    query: dict[str, str | int] = field(default_factory=dict)


Prepare = Callable[[Scene, Caller], Call]


def nothing_to_prepare(scene: Scene, caller: Caller) -> Call:
    return Call()


def actor(caller: Caller) -> Caller:
    """Return whose objects a call works on: the caller's own, or the player's."""
    return caller if caller.is_member else Caller.PLAYER


def _new_name(scene: Scene, caller: Caller) -> Call:
    return Call({"name": scene.new_player()})


CHARACTER = SESSION + "/characters/{character}"


def _new_character(scene: Scene, caller: Caller) -> Call:
    # A player creates their own (their earlier one retired first); a GM an NPC.
    if caller is Caller.PLAYER:
        scene.free_of_characters(caller)
        return Call(body={"name": f"Hero {scene.number()}"})
    return Call(body={"name": f"Npc {scene.number()}", "npc": True})


def _own_character(body: dict[str, Any] | None) -> Prepare:
    return lambda s, c: Call({"character": s.character(actor(c))}, body)


PREPARE: dict[tuple[str, str], Prepare] = {
    ("GET", "/api/v1/odds"): lambda s, c: Call(query={"expression": "1d20+3", "target": 13}),
    ("POST", "/api/v1/sessions"): lambda s, c: Call(body={"title": f"Opened {s.number()}"}),
    ("POST", SESSION + "/join"): lambda s, c: Call(
        body={"invite_code": s.invite(), "name": f"joiner-{s.number()}"}
    ),
    ("POST", "/api/v1/join"): lambda s, c: Call(
        body={"invite_code": s.invite(), "name": f"joiner-{s.number()}"}
    ),
    ("POST", SESSION + "/members/{name}/co-gm"): _new_name,
    ("POST", SESSION + "/members/{name}/revoke"): _new_name,
    ("POST", SESSION + "/members/{name}/sign-in-codes"): lambda s, c: Call({"name": "ann"}),
    # A member signs out a second device of their own; anyone else tries the player's first.
    ("POST", SESSION + "/devices/{device_id}/sign-out"): lambda s, c: Call(
        {"device_id": s.device(c) if c.is_member else s.first_device(Caller.PLAYER)}
    ),
    ("POST", SESSION + "/rolls"): lambda s, c: Call(body=CHECK),
    ("GET", ROLL): lambda s, c: Call({"roll_id": s.visible_roll}),
    ("POST", ROLL + "/reroll"): lambda s, c: Call(
        {"roll_id": s.awaiting_roll(actor(c))}, {"dice": [0]}
    ),
    ("POST", ROLL + "/accept"): lambda s, c: Call({"roll_id": s.awaiting_roll(actor(c))}),
    ("POST", ROLL + "/side"): lambda s, c: Call({"roll_id": s.awaiting_own_dice(actor(c))}),
    ("POST", ROLL + "/reveal"): lambda s, c: Call({"roll_id": s.blind()}),
    ("POST", ROLL + "/dispute"): lambda s, c: Call(
        {"roll_id": s.roll(actor(c), CHECK)}, {"reason": "the die fell off"}
    ),
    ("GET", ROLL + "/review"): lambda s, c: Call({"roll_id": s.visible_roll}),
    ("GET", ROLL + "/receipt"): lambda s, c: Call({"roll_id": s.visible_roll}),
    ("GET", SESSION + "/proof/inclusion"): lambda s, c: Call(query={"position": 1}),
    ("GET", SESSION + "/proof/consistency"): lambda s, c: Call(query={"from": 1}),
    ("POST", CAMPAIGNS): lambda s, c: Call(body={"title": "Matrix campaign", "session_id": s.sid}),
    ("GET", CAMPAIGN): lambda s, c: Call({"campaign_id": s.campaign()}),
    ("GET", CAMPAIGN + "/stats"): lambda s, c: Call({"campaign_id": s.campaign()}),
    ("POST", CAMPAIGN + "/sessions"): lambda s, c: Call(
        {"campaign_id": s.campaign()}, {"title": f"Evening {s.number()}"}
    ),
    ("POST", ROLL + "/ruling"): lambda s, c: Call(
        {"roll_id": s.disputed_roll()}, {"outcome": "upheld"}
    ),
    ("POST", SESSION + "/characters"): _new_character,
    ("POST", CHARACTER + "/attributes"): _own_character({"name": "STR", "value": 2}),
    ("POST", CHARACTER + "/qualities"): _own_character({"name": "Athletics", "value": 1}),
    ("POST", CHARACTER + "/saved-rolls"): _own_character(
        {"name": "Longsword", "kind": "check", "expression": "1d20+@STR"}
    ),
    ("POST", CHARACTER + "/retire"): _own_character(None),
    ("POST", SESSION + "/sheets"): lambda s, c: Call(body={"sheets": "player"}),
}


@dataclass(frozen=True)
class Answer:
    """What a call answered: status, content type and body text."""

    status: int
    content_type: str
    text: str
    headers: str

    def problem_type(self) -> str | None:
        """Return the problem's type, if the answer is a problem."""
        if "problem+json" not in self.content_type:
            return None
        kind: str = json.loads(self.text)["type"]
        return kind


def call(scene: Scene, row: Row, caller: Caller, prepared: Call) -> Answer:
    """Send one request as ``caller``; return its answer."""
    path = row.path.format(session_id=scene.sid, **prepared.path)
    headers = {}
    token = scene.tokens[caller]
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if row.method == "POST":
        headers["Idempotency-Key"] = f"matrix-{scene.number()}"
    if row.route in STREAMS:
        status = stream_status(scene.api, path, headers)
        if status < 400:  # an open stream never ends: its status is the answer
            return Answer(status, "", "", "")
    answer = scene.api.client.request(
        row.method, path, headers=headers, json=prepared.body, params=prepared.query
    )
    content_type = answer.headers.get("content-type", "")
    return Answer(answer.status_code, content_type, answer.text, str(answer.headers))


def stream_status(api: Api, path: str, headers: dict[str, str]) -> int:
    """Return the status a never-ending answer starts with, then hang up."""
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "state": dict(api.client.app_state),
    }

    async def probe() -> int:
        started = anyio.Event()
        status = 0

        async def receive() -> Message:
            await started.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                started.set()

        async def serve() -> None:
            await api.client.app(scope, receive, send)

        async with anyio.create_task_group() as group:
            group.start_soon(serve)
            with anyio.move_on_after(60):  # a stream that never starts answering
                await started.wait()
            group.cancel_scope.cancel()
        return status

    portal = api.client.portal
    assert portal is not None, "the client runs outside its with block"
    return portal.call(probe)


def leaks(scene: Scene, caller: Caller, answer: Answer) -> list[str]:
    """Return what the answer shows that ``caller`` must never receive."""
    shown = answer.text + answer.headers
    found = [f"secret {secret[:12]}..." for secret in scene.secrets_for(caller) if secret in shown]
    if not caller.sees_blind_rolls:
        found += [f"hidden roll field {key}" for key in _hidden_roll_fields(scene, answer)]
    return found


def _hidden_roll_fields(scene: Scene, answer: Answer) -> Iterator[str]:
    for document in _documents(answer):
        for item in _objects(document):
            if item.get("roll_id") != scene.blind_roll:
                continue
            yield from sorted(set(item) - HIDDEN_ROLL_KEYS)
            if item.get("event", HIDDEN_EVENT) not in (HIDDEN_EVENT, "RollRequested"):
                yield f"event={item['event']}"
            if item.get("detail", {"roll_id": scene.blind_roll}) != {"roll_id": scene.blind_roll}:
                yield "detail"


def _documents(answer: Answer) -> list[Any]:
    if "json" not in answer.content_type:
        return []
    if "jsonl" in answer.content_type:
        return [json.loads(line) for line in answer.text.splitlines() if line]
    return [json.loads(answer.text)]


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _objects(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _objects(inner)


def app_routes(api: Api) -> list[BaseRoute]:
    app = api.client.app
    assert isinstance(app, Starlette)
    return app.routes


def check(scene: Scene, row: Row, caller: Caller) -> list[str]:
    """Call ``row`` as ``caller``; return every way the answer differs from the table."""
    prepared = PREPARE.get(row.route, nothing_to_prepare)(scene, caller)
    refusal = expected(row, caller)
    before = snapshot(scene.api) if refusal is not None else None
    answer = call(scene, row, caller, prepared)
    problems = [f"{caller}: {leak}" for leak in leaks(scene, caller, answer)]
    problems += [f"{caller}: {stray}" for stray in undeclared(scene, row, answer)]
    if refusal is None:
        if not 200 <= answer.status < 300:
            problems.append(f"{caller}: expected success, got {answer.status} {answer.text}")
        return problems
    got = (answer.status, answer.problem_type())
    if got != refusal:
        problems.append(f"{caller}: expected {refusal}, got {got} {answer.text[:200]}")
    after = snapshot(scene.api)
    changed = sorted(name for name in after if after[name] != (before or {}).get(name))
    if changed:
        problems.append(f"{caller}: the refusal changed {', '.join(changed)}")
    return problems


def undeclared(scene: Scene, row: Row, answer: Answer) -> list[str]:
    """Return how an answer strays from what /openapi.json declares for its route.

    A client generated from the document knows only the statuses and media types it
    declares: every answer the matrix meets must be one of them.
    """
    document: dict[str, Any] = scene.api.get("/openapi.json").json()
    if row.path not in document["paths"]:
        return []  # the document itself, and the pages, are not in it
    responses = document["paths"][row.path][row.method.lower()]["responses"]
    declared = responses.get(str(answer.status))
    if declared is None:
        return [f"{row} answered {answer.status}, not declared in /openapi.json"]
    media = answer.content_type.split(";")[0].strip()
    if media and media not in declared.get("content", {}):
        return [f"{row} answered {answer.status} as {media}, not declared in /openapi.json"]
    return []


def check_page(scene: Scene, row: Row, caller: Caller) -> list[str]:
    """Visit page ``row`` as ``caller``'s browser; return how the answer differs from the table.

    The page's refusal has the status the API's would, as an HTML page; a page read, and
    any refusal, changes nothing; a form signs the browser in and leads to the table.
    """
    refusal = expected(row, caller)
    path = page_path(scene, row, caller)
    before = snapshot(scene.api) if refusal is not None or row.method == "GET" else None
    answer = call_page(scene, row, caller, path)
    problems = [f"{caller}: {leak}" for leak in page_leaks(scene, row, caller, answer)]
    if refusal is not None:
        status, _ = refusal
        if (answer.status, PAGE_ERROR_TYPE in answer.content_type) != (status, True):
            problems.append(
                f"{caller}: expected a {status} page, got {answer.status} "
                f"{answer.content_type} {answer.text[:200]}"
            )
    elif row.method == "POST":
        problems += form_signed_in(scene, row, caller, answer)
    elif answer.status != 200:
        problems.append(f"{caller}: expected the page, got {answer.status} {answer.text[:200]}")
    elif row.path.startswith("/s/") and signed_in_as(NAMES[caller]) not in answer.text:
        problems.append(f"{caller}: the page does not show {NAMES[caller]} signed in")
    if before is not None:
        problems += [f"{caller}: {change}" for change in changes(scene, before, "the visit")]
    if row.method == "POST":
        problems += forged_form_refused(scene, row, caller)
    return problems


def form_signed_in(scene: Scene, row: Row, caller: Caller, answer: PageAnswer) -> list[str]:
    """Return how a form's answer differs from a 303 to the table, signed in by cookie."""
    target = {"/new": answer.signed_in}.get(row.path, scene.sid)
    if (answer.status, answer.location, answer.signed_in) != (303, f"/s/{target}", target):
        return [f"{caller}: expected a 303 to /s/{target} with its cookie, got {answer}"]
    who = signed_in_as(NAMES[actor(caller)]) if row.path == "/sign-in/{code}" else "Signed in as"
    if who not in answer.landed:
        return [f"{caller}: the form's redirect did not land on the table, {who}"]
    return []


def signed_in_as(name: str) -> str:
    """Return how a session page names the member its cookie signed in."""
    return f"Signed in as <strong>{name}</strong>"


def forged_form_refused(scene: Scene, row: Row, caller: Caller) -> list[str]:
    """Post the form as another site would (no form cookie): a 403 page, nothing changed."""
    path = page_path(scene, row, caller)
    before = snapshot(scene.api)
    answer = call_page(scene, row, caller, path, forged=True)
    problems = [f"{caller}: forged form: {leak}" for leak in page_leaks(scene, row, caller, answer)]
    if (answer.status, PAGE_ERROR_TYPE in answer.content_type) != (403, True):
        problems.append(f"{caller}: a forged form got {answer.status} {answer.text[:200]}")
    return problems + [f"{caller}: {c}" for c in changes(scene, before, "the forged form")]


def page_leaks(scene: Scene, row: Row, caller: Caller, answer: PageAnswer) -> list[str]:
    """Return what a page, and the table its form led to, show someone who must not see it.

    The table a form leads to is shown to whom the form signed in: a new player, the
    member whose sign-in code it was, or the GM of a new session (a stranger here).
    """
    found = _html_leaks(scene, caller, answer.text, answer.headers)
    if answer.landed:
        viewer = actor(caller) if row.path == "/sign-in/{code}" else Caller.PLAYER
        found += [
            f"after the redirect: {leak}" for leak in _html_leaks(scene, viewer, answer.landed)
        ]
    return found


def _html_leaks(scene: Scene, viewer: Caller, page: str, headers: str = "") -> list[str]:
    found = leaks(scene, viewer, Answer(200, PAGE_ERROR_TYPE, page, headers))
    return found + ([] if viewer.sees_blind_rolls else hidden_roll_shown(scene, page))


def changes(scene: Scene, before: dict[str, list[str]], what: str) -> list[str]:
    """Return the tables that changed since ``before``, if any."""
    after = snapshot(scene.api)
    changed = sorted(name for name in after if after[name] != before.get(name))
    return [f"{what} changed {', '.join(changed)}"] if changed else []


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_every_caller_gets_what_the_route_table_promises(api: Api, row: Row) -> None:
    if row.route in PAGES:
        scene = build_scene(api)
        assert [p for caller in Caller for p in check_page(scene, row, caller)] == []
        return
    if row.route in PENDING and row.route not in served_routes(app_routes(api)):
        pytest.skip(f"{row} is documented but not served on this branch yet")
    scene = build_scene(api)
    problems: list[str] = []
    for caller in Caller:
        if row.route in FRESH_SCENE:
            scene = build_scene(api)
        problems += check(scene, row, caller)
    assert problems == []


def test_the_route_table_lists_exactly_the_routes_the_app_serves(api: Api) -> None:
    served = served_routes(app_routes(api))
    documented = {row.route for row in ROWS}
    assert len(documented) == len(ROWS), "a route has two rows"
    assert sorted(served - documented) == [], "served, but not in the table of docs/api.md"
    assert sorted(documented - served - PENDING) == [], "in the table, but not served"


def test_every_route_of_the_openapi_document_is_in_the_table_and_called_here(api: Api) -> None:
    paths = api.get("/openapi.json").json()["paths"]
    described = {(method.upper(), path) for path, item in paths.items() for method in item}
    assert described, "the OpenAPI document describes no route"
    called = {row.route for row in ROWS} - PENDING
    assert sorted(described - called) == [], "in /openapi.json, but no row of docs/api.md"


@pytest.mark.parametrize(
    "code",
    ["dli_" + "A" * 22, "not-an-invite", "used", "other session's"],
)
def test_only_a_valid_unused_invite_of_the_session_lets_anyone_join(api: Api, code: str) -> None:
    scene = build_scene(api)
    if code == "used":
        code = scene.invite()
        body = {"invite_code": code, "name": "first"}
        assert api.post(f"/api/v1/sessions/{scene.sid}/join", body=body).status_code == 201
    elif code == "other session's":
        other = scene.tokens[Caller.OTHER_SESSION]
        code = api.post(f"/api/v1/sessions/{scene.other_sid}/invites", other).json()["invite_code"]
    before = snapshot(api)
    answer = api.post(
        f"/api/v1/sessions/{scene.sid}/join", body={"invite_code": code, "name": "intruder"}
    )
    assert (answer.status_code, answer.json()["type"]) == FORBIDDEN
    assert snapshot(api) == before


def test_a_players_export_seals_a_blind_roll_until_it_is_revealed(api: Api) -> None:
    scene = build_scene(api)
    export = f"/api/v1/sessions/{scene.sid}/export"

    def sealed_rolls() -> set[int]:
        answer = api.get(export, scene.tokens[Caller.PLAYER])
        assert answer.status_code == 200
        lines = [json.loads(line) for line in answer.text.splitlines()]
        return {line["roll_id"] for line in lines if "sealed" in line}

    assert sealed_rolls() == {scene.blind_roll}
    revealed = api.post(f"/api/v1/sessions/{scene.sid}/rolls/{scene.blind_roll}/reveal", scene.gm)
    assert revealed.status_code == 200
    assert sealed_rolls() == set()


def _sign_in_code(scene: Scene, token: str | None) -> str:
    made = scene.api.post(f"/api/v1/sessions/{scene.sid}/sign-in-codes", token)
    assert made.status_code == 201, made.text
    code: str = made.json()["sign_in_path"].removeprefix("/sign-in/")
    return code


def _used(scene: Scene, kind: str) -> str:
    """Return a code of ``kind`` its browser has already redeemed."""
    if kind == "invite":
        code, form = scene.invite(), {"name": f"first-{scene.number()}"}
    else:
        code, form = _sign_in_code(scene, scene.tokens[Caller.PLAYER]), {}
    client = browser(scene, Caller.NO_TOKEN)
    path = f"/{'join' if kind == 'invite' else 'sign-in'}/{code}"
    token = form_token(client.get(path).text)
    assert client.post(path, data={FORM_FIELD: token, **form}).status_code == 303
    return code


def _revoked_members_code(scene: Scene) -> str:
    """Return a sign-in code its member made before the GM revoked them."""
    name = scene.new_player()
    code = _sign_in_code(scene, scene.minted[-1])
    revoked = scene.api.post(f"/api/v1/sessions/{scene.sid}/members/{name}/revoke", scene.gm)
    assert revoked.status_code == 200, revoked.text
    return code


BOTH = ("/join/{code}", "/sign-in/{code}")
UNUSABLE_CODES: dict[str, tuple[tuple[str, ...], Callable[[Scene], str]]] = {
    "unknown invite": (BOTH, lambda s: "dli_" + "A" * 22),
    "unknown sign-in code": (BOTH, lambda s: "dls_" + "A" * 43),
    "not a code": (BOTH, lambda s: "not-a-code"),
    "used invite": (BOTH, lambda s: _used(s, "invite")),
    "spent sign-in code": (BOTH, lambda s: _used(s, "sign-in")),
    "live invite": (("/sign-in/{code}",), lambda s: s.invite()),
    "live sign-in code": (("/join/{code}",), lambda s: _sign_in_code(s, s.gm)),
    "revoked member's sign-in code": (("/sign-in/{code}",), _revoked_members_code),
}


@pytest.mark.parametrize(
    ("page", "kind"),
    [(page, kind) for kind, (pages, _) in UNUSABLE_CODES.items() for page in pages],
)
def test_a_code_page_refuses_an_unusable_code_and_changes_nothing(
    api: Api, page: str, kind: str
) -> None:
    """An invite holder is only the holder of a live code of the kind the page asks for."""
    scene = build_scene(api)
    path = page.format(code=UNUSABLE_CODES[kind][1](scene))
    client = browser(scene, Caller.NO_TOKEN)
    token = form_token(client.get("/").text)  # this browser's own form token: no forgery
    before = snapshot(api)
    shown = client.get(path)
    posted = client.post(path, data={FORM_FIELD: token, "name": f"intruder-{scene.number()}"})
    answers = [(a.status_code, a.headers["content-type"].split(";")[0]) for a in (shown, posted)]
    assert answers == [(403, PAGE_ERROR_TYPE)] * 2, (shown.text[:300], posted.text[:300])
    assert snapshot(api) == before

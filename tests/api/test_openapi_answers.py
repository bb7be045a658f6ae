"""/openapi.json gives every success a real schema, and the server's real answers fit it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from diceledger.web.openapi import LiveCheckpoint, LiveEvent
from tests.api.conftest import Api, Table, open_table
from tests.api.contract import JsonDocument, check_answer, success_schemas

SCHEMAS = "#/components/schemas/"


@pytest.fixture
def document(api: Api) -> JsonDocument:
    found: JsonDocument = api.get("/openapi.json").json()
    return found


def test_every_success_of_every_route_has_a_schema(document: JsonDocument) -> None:
    schemas = success_schemas(document)
    routes = {f"{m.upper()} {p}" for p, item in document["paths"].items() for m in item}
    assert {" ".join(key.split()[:2]) for key in schemas} == routes
    assert [key for key, schema in schemas.items() if not schema] == []


def test_json_lines_csv_and_the_stream_are_declared_with_their_own_media_types(
    document: JsonDocument,
) -> None:
    media = {key.rsplit(" ", 1)[1] for key in success_schemas(document)}
    assert {"application/jsonl", "text/csv", "text/event-stream"} <= media
    answers = document["paths"]["/api/v1/sessions/{session_id}/export"]["get"]["responses"]
    assert list(answers["200"]["content"]) == ["application/jsonl"]
    stream = document["paths"]["/api/v1/sessions/{session_id}/events"]["get"]["responses"]
    event = stream["200"]["content"]["text/event-stream"]["schema"]
    assert "docs/live.md" in stream["200"]["description"]
    data = event["properties"]["data"]
    assert data["contentMediaType"] == "application/json"
    refs = [ref["$ref"] for ref in data["contentSchema"]["oneOf"]]
    assert refs == [SCHEMAS + LiveEvent.__name__, SCHEMAS + LiveCheckpoint.__name__]
    assert {LiveEvent.__name__, LiveCheckpoint.__name__} <= set(document["components"]["schemas"])


def test_limits_reach_the_document_as_constraints(document: JsonDocument) -> None:
    schemas = document["components"]["schemas"]
    assert schemas["RollBody"]["properties"]["expression"]["maxLength"] == 1000
    assert schemas["NewInvite"]["properties"]["expires_in_minutes"]["maximum"] == 7 * 24 * 60
    assert schemas["EpochAnswer"]["properties"]["commitment"]["pattern"] == "^[0-9a-f]{64}$"
    assert schemas["RulingAnswer"]["properties"]["outcome"]["enum"] == ["upheld", "voided"]


def test_a_members_routes_declare_the_bearer_scheme(document: JsonDocument) -> None:
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    show = document["paths"]["/api/v1/sessions/{session_id}"]["get"]
    assert show["security"] == [{"bearer": []}]
    assert "security" not in document["paths"]["/api/v1/keys"]["get"]


class Recorder:
    """Calls the API and holds every answer to the document as it comes."""

    def __init__(self, api: Api, document: JsonDocument) -> None:
        self.api, self.document = api, document
        self.checked: set[str] = set()

    def call(
        self, method: str, path: str, token: str | None = None, body: Any = None, **params: Any
    ) -> Any:
        headers = {"Idempotency-Key": f"key-{len(self.checked)}-{path}"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        answer = self.api.client.request(method, path, json=body, params=params, headers=headers)
        assert answer.status_code < 300, f"{method} {path}: {answer.text}"
        media = answer.headers["content-type"]
        check_answer(self.document, method, path, answer.status_code, media, answer.content)
        self.checked.add(f"{method} {path}")
        return answer.json() if "json" in media and "jsonl" not in media else answer.text


def test_real_answers_of_a_played_session_fit_their_schemas(
    api: Api, document: JsonDocument
) -> None:
    t: Table = open_table(api)
    calls = Recorder(api, document)
    opened = calls.call("POST", "/api/v1/sessions", body={"title": "Side quest", "name": "mira"})
    other = f"/api/v1/sessions/{opened['session_id']}"
    code = calls.call("POST", f"{other}/invites", opened["gm_token"])["invite_code"]
    calls.call("POST", f"{other}/join", body={"invite_code": code, "name": "ann"})
    s = f"/api/v1/sessions/{t.sid}"
    calls.call("GET", "/healthz")
    calls.call("GET", "/api/v1/keys")
    calls.call("GET", "/api/v1/schema/events")
    calls.call("GET", "/api/v1/odds", expression="1d20+5", target=15)
    calls.call("GET", "/api/v1/odds", expression="1d20", vs="1d20")
    check = {"kind": "check", "expression": "1d20+5", "target": 15, "adv": [{"amount": 1}]}
    checked = calls.call("POST", f"{s}/rolls", t.ann, check)["roll_id"]
    damage = calls.call(
        "POST", f"{s}/rolls", t.ann, {"kind": "damage", "expression": "2d6", "reroll": 1}
    )
    calls.call("POST", f"{s}/rolls/{damage['roll_id']}/reroll", t.ann, {"dice": [0]})
    calls.call(
        "POST",
        f"{s}/rolls",
        t.bob,
        {"kind": "save", "expression": "1d20", "dc": 2, "against": "poison"},
    )
    opposed = {
        "kind": "opposed",
        "expression": "1d20",
        "for": "orc",
        "vs": {"name": "ann", "expression": "1d20"},
        "reroll": 1,
    }
    duel = calls.call("POST", f"{s}/rolls", t.gm, opposed)["roll_id"]
    calls.call("POST", f"{s}/rolls/{duel}/accept", t.gm)
    blind = {"kind": "roll", "expression": "1d8", "blind": True, "faces": [8, 3]}
    hidden = calls.call("POST", f"{s}/rolls", t.gm, blind)["roll_id"]
    assert calls.call("GET", f"{s}/rolls/{hidden}", t.ann)["status"] == "hidden"
    calls.call("GET", f"{s}", t.ann)
    calls.call("POST", f"{s}/rolls/{hidden}/reveal", t.gm)
    calls.call("GET", f"{s}/rolls/{duel}", t.ann)
    calls.call("POST", f"{s}/rolls/{checked}/dispute", t.bob, {"reason": "it fell off"})
    calls.call("GET", f"{s}/rolls/{checked}/review", t.gm)
    calls.call("POST", f"{s}/rolls/{checked}/ruling", t.gm, {"outcome": "upheld", "note": "fine"})
    calls.call("POST", f"{s}/seed/reveal", t.gm)
    calls.call("GET", f"{s}", t.gm)
    calls.call("GET", f"{s}/replay", t.ann)
    calls.call("GET", f"{s}/replay", t.ann, until_position=5)
    calls.call("GET", f"{s}/stats", t.ann)
    calls.call("GET", f"{s}/stats", t.ann, format="csv")
    calls.call("GET", f"{s}/verify", t.ann)
    calls.call("GET", f"{s}/checkpoint", t.ann)
    calls.call("GET", f"{s}/proof/inclusion", t.ann, position=2)
    calls.call("GET", f"{s}/proof/consistency", t.ann, **{"from": 2})
    calls.call("GET", f"{s}/rolls/{checked}/receipt", t.ann)
    calls.call("GET", f"{s}/export", t.gm)
    calls.call("GET", f"{s}/members", t.gm)
    calls.call("POST", f"{s}/invites", t.gm, {"expires_in_minutes": 5})
    calls.call("POST", f"{s}/sign-in-codes", t.ann)
    calls.call("GET", f"{s}/devices", t.ann)
    device = calls.call("GET", f"{s}/devices", t.ann)["devices"][0]["device_id"]
    calls.call("POST", f"{s}/members/bob/sign-in-codes", t.gm)
    calls.call("POST", f"{s}/members/bob/co-gm", t.gm)
    calls.call("POST", f"{s}/members/bob/revoke", t.gm)
    calls.call("POST", f"{s}/characters", t.ann, {"name": "Thalia"})
    calls.call("POST", f"{s}/characters", t.gm, {"name": "Goblin", "npc": True})
    sheet = f"{s}/characters/Thalia"
    calls.call("POST", f"{sheet}/attributes", t.ann, {"name": "STR", "value": 3, "label": "Str"})
    calls.call("POST", f"{sheet}/qualities", t.ann, {"name": "Athletics", "value": 2})
    saved = {"name": "Longsword", "kind": "check", "expression": "1d20+@STR"}
    calls.call("POST", f"{sheet}/saved-rolls", t.ann, saved)
    from_sheet = {"kind": "check", "expression": "1d20+@STR", "target": 12, "faces": [7]}
    calls.call("POST", f"{s}/rolls", t.ann, from_sheet)
    calls.call("GET", f"{s}/characters", t.ann)
    calls.call("POST", f"{s}/sheets", t.gm, {"sheets": "gm"})
    calls.call("POST", f"{s}/characters/Goblin/retire", t.gm)
    campaign = calls.call("POST", "/api/v1/campaigns", t.gm, {"title": "Ash", "session_id": t.sid})
    c = f"/api/v1/campaigns/{campaign['campaign_id']}"
    calls.call("POST", f"{c}/sessions", t.gm, {"title": "Evening two"})
    calls.call("GET", c, t.ann)
    by_character = calls.call("GET", f"{c}/stats", t.ann)["characters"]
    assert {(r["session_id"], r["character"]) for r in by_character} == {
        (t.sid, "Thalia"),
        ("ALL", "Thalia"),
    }
    calls.call("GET", f"{c}/stats", t.ann, format="csv")
    calls.call("POST", f"{s}/end", t.gm)
    calls.call("POST", f"{s}/devices/{device}/sign-out", t.ann)
    assert len(calls.checked) >= 30


@pytest.mark.parametrize(
    "char", ["\x00", "\n", "\x1f", "\x7f", "\x9f", "\u2028", "\u2029", "\u202e", "\u2066"]
)
def test_text_the_document_rules_out_is_text_the_server_refuses(
    api: Api, document: JsonDocument, char: str
) -> None:
    """The declared pattern promises no more than the domain's text check keeps."""
    title = document["components"]["schemas"]["NewSession"]["properties"]["title"]
    assert re.fullmatch(title["pattern"], f"Tomb{char}of Ash") is None
    assert re.fullmatch(title["pattern"], "Tomb of Ash") is not None
    refused = api.post("/api/v1/sessions", body={"title": f"Tomb{char}of Ash", "name": "mira"})
    assert refused.status_code == 422, refused.text
    assert refused.json()["type"] == "/problems/invalid-input"


def test_each_operation_is_named_once_by_what_it_does(document: JsonDocument) -> None:
    """A generated client's functions are the operationIds: short, and none used twice."""
    ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))
    rolls = document["paths"]["/api/v1/sessions/{session_id}/rolls"]["post"]
    assert rolls["operationId"] == "request_roll"

"""What the API takes is what it says: no coercion, no naive times, no hidden characters.

Each refusal is one problem+json line, and nothing is recorded.
"""

from __future__ import annotations

from urllib.parse import quote

import httpx2
import pytest

from tests.api.conftest import Api, Table

CHECK: dict[str, object] = {"kind": "check", "expression": "1d20+5", "target": 15}
ROLL: dict[str, object] = {"kind": "roll", "expression": "1d6"}


def events_of(api: Api, table: Table) -> int:
    return api.services.app.session("mira", table.sid).version


def assert_refused(
    answer: httpx2.Response, field: str, kind: str = "/problems/invalid-input"
) -> None:
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    problem = answer.json()
    assert problem["type"] == kind
    assert problem["detail"].startswith(field), problem["detail"]
    assert "\n" not in problem["detail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**CHECK, "target": "15"}, "target"),
        ({**CHECK, "target": True}, "target"),
        ({**CHECK, "target": 15.0}, "target"),
        ({"kind": "damage", "expression": "2d6", "reroll": True}, "reroll"),
        ({**ROLL, "faces": ["1"]}, "faces.0"),
        ({**ROLL, "no_explode": "yes"}, "no_explode"),
        ({**ROLL, "blind": 1}, "blind"),
        ({**CHECK, "adv": [{"amount": "1"}]}, "adv.0.amount"),
    ],
    ids=["target-string", "target-bool", "target-float", "reroll-bool", "faces-strings"]
    + ["no-explode-string", "blind-number", "nested-amount-string"],
)
def test_a_roll_body_of_the_wrong_json_type_is_refused_not_coerced(
    api: Api, table: Table, body: dict[str, object], field: str
) -> None:
    before = events_of(api, table)
    assert_refused(api.roll(table.sid, table.ann, body), field)
    assert events_of(api, table) == before


def test_the_other_bodies_are_strict_too(api: Api, table: Table) -> None:
    base = f"/api/v1/sessions/{table.sid}"
    waiting = api.roll(table.sid, table.ann, {"kind": "damage", "expression": "2d6", "reroll": 1})
    roll_id = waiting.json()["roll_id"]
    before = events_of(api, table)
    refused = [
        (api.post(f"{base}/rolls/{roll_id}/reroll", table.ann, {"dice": ["0"]}, "k1"), "dice.0"),
        (api.post(f"{base}/invites", table.gm, {"expires_in_minutes": "30"}), "expires_in_minutes"),
        (api.post("/api/v1/sessions", body={"title": "T", "forbid_manual": "no"}), "forbid_manual"),
    ]
    for answer, field in refused:
        assert_refused(answer, field)
    assert events_of(api, table) == before


@pytest.mark.parametrize("path", ["/rolls/1.0", "/rolls/1e0", "/rolls/+1", "/rolls/1.0/review"])
def test_a_roll_id_in_a_path_is_a_whole_number_or_refused(
    api: Api, table: Table, path: str
) -> None:
    api.roll(table.sid, table.ann, CHECK)  # roll 1 exists: "1.0" must not reach it
    assert_refused(api.get(f"/api/v1/sessions/{table.sid}{path}", table.gm), "roll_id")


def test_a_roll_id_in_a_path_still_finds_its_roll(api: Api, table: Table) -> None:
    rolled = api.roll(table.sid, table.ann, CHECK).json()
    shown = api.get(f"/api/v1/sessions/{table.sid}/rolls/{rolled['roll_id']}", table.ann)
    assert shown.status_code == 200 and shown.json()["roll_id"] == rolled["roll_id"]


def test_a_replay_time_without_a_utc_offset_is_refused(api: Api, table: Table) -> None:
    base = f"/api/v1/sessions/{table.sid}/replay"
    assert_refused(api.get(base, table.ann, at="2026-01-01T00:00:00"), "at")
    aware = api.get(base, table.ann, at="2026-01-01T00:00:00+00:00")
    assert aware.status_code == 200 and aware.json()["lines"] == []


@pytest.mark.parametrize("at", ["0.5", "1700000000", "20260101"])
def test_a_replay_time_given_as_a_number_is_refused_not_read_as_seconds(
    api: Api, table: Table, at: str
) -> None:
    base = f"/api/v1/sessions/{table.sid}/replay"
    assert_refused(api.get(base, table.ann, at=at), "at")


@pytest.mark.parametrize(
    "expression",
    ["1d20\n+5", "1d20\u00a0+5", "1d20\t+5", "1d20+5\u2028", "1d20\u200b+5"],
    ids=["newline", "no-break-space", "tab", "line-separator", "zero-width-space"],
)
def test_an_expression_holding_a_hidden_or_line_breaking_character_is_refused(
    api: Api, table: Table, expression: str
) -> None:
    before = events_of(api, table)
    answer = api.roll(table.sid, table.ann, {**CHECK, "expression": expression})
    assert_refused(answer, "", "/problems/dice-notation")
    assert "U+" in answer.json()["detail"]
    vs = {"name": "bob", "expression": expression}
    opposed = {"kind": "opposed", "expression": "1d20", "vs": vs}
    assert_refused(api.roll(table.sid, table.gm, opposed), "", "/problems/dice-notation")
    assert events_of(api, table) == before


def test_an_expression_may_still_space_its_terms(api: Api, table: Table) -> None:
    answer = api.roll(table.sid, table.ann, {**CHECK, "expression": " 1d20 + 5 [STR] "})
    assert answer.status_code == 201


@pytest.mark.parametrize("text", ["\u202e", "a\u202eb", "\x1b[2J", "x\u2066y", "\u200f"], ids=repr)
def test_a_problem_detail_escapes_control_and_direction_characters(
    api: Api, table: Table, text: str
) -> None:
    # A token of one session on another's path: answered as an unknown session, named.
    answer = api.get(f"/api/v1/sessions/{quote(text)}", table.ann)
    problem = answer.json()
    assert (answer.status_code, problem["type"]) == (404, "/problems/unknown-session")
    for shown in (problem["detail"], problem["instance"]):
        assert shown.isprintable(), repr(shown)
    assert shown_escaped(text) in problem["detail"]


def shown_escaped(text: str) -> str:
    return "".join(
        char
        if char.isprintable()
        else f"\\x{ord(char):02x}"
        if ord(char) < 0x100
        else f"\\u{ord(char):04x}"
        for char in text
    )


@pytest.mark.parametrize(
    "name",
    ["\u0430nn", "ANN", "gob\u200blin", "goblin\u3164", "gob\u202elin", "goblin  king"],
    ids=["cyrillic-a", "case", "zero-width-space", "hangul-filler", "direction", "two-spaces"],
)
def test_an_npc_name_gets_the_checks_a_member_name_gets(api: Api, table: Table, name: str) -> None:
    before = events_of(api, table)
    assert_refused(api.roll(table.sid, table.gm, {**CHECK, "for": name}), "")
    opposed = {"kind": "opposed", "expression": "1d20", "vs": {"name": name, "expression": "1d20"}}
    assert_refused(api.roll(table.sid, table.gm, opposed), "")
    assert events_of(api, table) == before


def test_an_npc_with_a_name_of_its_own_still_rolls(api: Api, table: Table) -> None:
    rolled = api.roll(table.sid, table.gm, {**CHECK, "for": "Goblin King"})
    assert rolled.status_code == 201 and rolled.json()["for"] == "Goblin King"
    opposed = {
        "kind": "opposed",
        "expression": "1d20",
        "vs": {"name": "ogre", "expression": "1d20"},
    }
    assert api.roll(table.sid, table.gm, opposed).status_code == 201

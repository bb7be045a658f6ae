"""What the API takes is what it says: no coercion, no naive times.

Each refusal is one problem+json line, and nothing is recorded.
"""

from __future__ import annotations

import httpx2
import pytest

from tests.api.conftest import Api, Table

CHECK: dict[str, object] = {"kind": "check", "expression": "1d20+5", "target": 15}
ROLL: dict[str, object] = {"kind": "roll", "expression": "1d6"}


def events_of(api: Api, table: Table) -> int:
    return api.services.app.session("mira", table.sid).state.version


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

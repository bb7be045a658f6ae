"""Opposed checks whose sides reroll, over HTTP: the same fields and turns as the CLI's."""

from __future__ import annotations

import uuid

from tests.api.conftest import Api, Table


def rolls(table: Table, roll_id: int, action: str) -> str:
    return f"/api/v1/sessions/{table.sid}/rolls/{roll_id}/{action}"


def test_r6_r11_each_side_rerolls_in_turn_over_http(api: Api, table: Table) -> None:
    body = {
        "kind": "opposed",
        "expression": "1d20+2",
        "reroll": 1,
        "reroll_scope": "effect",
        "vs": {"name": "bob", "expression": "1d20", "reroll": 1},
        "faces": [3, 12],
    }
    answer = api.roll(table.sid, table.ann, body)
    assert answer.status_code == 201, answer.json()
    roll = answer.json()
    assert (roll["status"], roll["waiting_for"], roll["rerolls_left"]) == (
        "awaiting_rerolls",
        "ann",
        1,
    )
    refused = api.post(rolls(table, 1, "reroll"), table.bob, {"dice": [0]}, key=str(uuid.uuid4()))
    assert refused.status_code == 403
    assert "waits for ann's side" in refused.json()["detail"]
    rerolled = api.post(
        rolls(table, 1, "reroll"), table.ann, {"dice": [0], "faces": [10]}, key=str(uuid.uuid4())
    ).json()
    assert (rerolled["waiting_for"], rerolled["rerolls_left"], rerolled["total"]) == ("bob", 1, 12)
    # 12 all: bob's accept ties, and its typed-in faces give the fresh round, in which bob,
    # whose reroll carries, waits again (ann has none left).
    tied = api.post(rolls(table, 1, "accept"), table.bob, {"faces": [9, 4]})
    assert tied.status_code == 200, tied.json()
    assert (tied.json()["rounds"], tied.json()["waiting_for"]) == (2, "bob")
    final = api.post(rolls(table, 1, "accept"), table.bob).json()
    assert (final["status"], final["winner"], final["rounds"]) == ("resolved", "ann", 2)
    sides = [(c["name"], c["rerolls_spent"], c["total"]) for c in final["contestants"]]
    assert sides == [("ann", 1, 11), ("bob", 0, 4)]


def test_r11_a_side_with_rerolls_left_waits_again_after_a_tie_over_http(
    api: Api, table: Table
) -> None:
    body = {
        "kind": "opposed",
        "expression": "1d20+2",
        "reroll": 1,
        "vs": {"name": "bob", "expression": "1d20"},
        "faces": [10, 12],
    }
    api.roll(table.sid, table.ann, body)
    tied = api.post(rolls(table, 1, "accept"), table.ann, {"faces": [4, 6]}).json()
    assert (tied["status"], tied["rounds"], tied["waiting_for"]) == ("awaiting_rerolls", 2, "ann")
    last = api.post(rolls(table, 1, "reroll"), table.ann, {"dice": [0], "faces": [8]}, key="k1")
    assert (last.json()["winner"], last.json()["total"]) == ("ann", 10)


def test_an_opposed_check_still_refuses_auto_reroll(api: Api, table: Table) -> None:
    body = {
        "kind": "opposed",
        "expression": "1d20",
        "auto_reroll": True,
        "vs": {"name": "bob", "expression": "1d20"},
    }
    answer = api.roll(table.sid, table.ann, body)
    assert answer.status_code == 422
    assert answer.json()["detail"] == "an opposed check takes no auto_reroll"


def test_opposed_odds_over_http_take_each_sides_rerolls(api: Api) -> None:
    answer = api.get("/api/v1/odds", expression="1d6n", vs="1d4n+1", reroll=2, vs_reroll=1).json()
    assert answer["win"]["fraction"] == "933/1331"
    assert answer["versus"] == "1d4n+1, reroll 1"
    refused = api.get("/api/v1/odds", expression="1d6n", vs_reroll=1)
    assert refused.status_code == 422

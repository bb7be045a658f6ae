"""Opposed checks whose sides reroll, over HTTP: the same fields and turns as the CLI's."""

from __future__ import annotations

import uuid

from tests.api.conftest import Api, Table


def rolls(table: Table, roll_id: int, action: str) -> str:
    return f"/api/v1/sessions/{table.sid}/rolls/{roll_id}/{action}"


def test_r6_r11_each_side_rerolls_in_turn_over_http(api: Api, table: Table) -> None:
    # ann types in her own die; bob's is the server's, until bob rerolls it with his own.
    body = {
        "kind": "opposed",
        "expression": "1d20+2",
        "reroll": 1,
        "reroll_scope": "effect",
        "vs": {"name": "bob", "expression": "1d20", "reroll": 1},
        "faces": [3],
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
    final = api.post(
        rolls(table, 1, "reroll"), table.bob, {"dice": [0], "faces": [4]}, key=str(uuid.uuid4())
    ).json()
    assert (final["status"], final["winner"], final["rounds"]) == ("resolved", "ann", 1)
    sides = [(c["name"], c["rerolls_spent"], c["total"]) for c in final["contestants"]]
    assert sides == [("ann", 1, 12), ("bob", 1, 4)]
    # Every die names its side, its round and who typed it in (None: the server's).
    typed = [
        (d["side_name"], d["round"], d["reason"], d["typed_by"])
        for d in final["dice"]
        if d["reason"] != "explosion"
    ]
    assert typed == [
        ("ann", 1, "initial", "ann"),
        ("ann", 1, "reroll", "ann"),
        ("bob", 1, "initial", None),
        ("bob", 1, "reroll", "bob"),
    ]


def test_r6_a_player_cannot_type_in_the_other_sides_dice_over_http(api: Api, table: Table) -> None:
    body = {
        "kind": "opposed",
        "expression": "1d20",
        "vs": {"name": "bob", "expression": "1d20"},
        "faces": [17, 2],
    }
    answer = api.roll(table.sid, table.ann, body)
    assert answer.status_code == 422
    assert "faces typed in are only for your own side" in answer.json()["detail"]
    assert api.get(f"/api/v1/sessions/{table.sid}", token=table.ann).json()["rolls"] == []


def test_r6_a_player_cannot_hinder_the_other_members_side_over_http(api: Api, table: Table) -> None:
    body = {
        "kind": "opposed",
        "expression": "1d20",
        "vs": {
            "name": "bob",
            "expression": "1d20",
            "dis": [{"amount": 2}],
            "hindered": [{"amount": 5}],
        },
        "faces": [17],
    }
    answer = api.roll(table.sid, table.ann, body)
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("only a GM may give bob's side Advantage")
    assert api.get(f"/api/v1/sessions/{table.sid}", token=table.ann).json()["rolls"] == []


def test_r6_a_player_cannot_give_the_other_members_side_a_d4_over_http(
    api: Api, table: Table
) -> None:
    body = {"kind": "opposed", "expression": "1d20", "vs": {"name": "bob", "expression": "1d4"}}
    answer = api.roll(table.sid, table.ann, body)
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("bob's side rolls one d20 and their MODs")
    assert api.get(f"/api/v1/sessions/{table.sid}", token=table.ann).json()["rolls"] == []


def test_r11_a_side_with_rerolls_left_waits_again_after_a_tie_over_http(
    api: Api, table: Table
) -> None:
    # The GM types in both sides' dice: the other side is an NPC's (R6).
    body = {
        "kind": "opposed",
        "expression": "1d20+2",
        "reroll": 1,
        "vs": {"name": "orc", "expression": "1d20"},
        "faces": [10, 12],
    }
    api.roll(table.sid, table.gm, body)
    tied = api.post(rolls(table, 1, "accept"), table.gm, {"faces": [4, 6]}).json()
    assert (tied["status"], tied["rounds"], tied["waiting_for"]) == ("awaiting_rerolls", 2, "mira")
    last = api.post(rolls(table, 1, "reroll"), table.gm, {"dice": [0], "faces": [8]}, key="k1")
    assert (last.json()["winner"], last.json()["total"]) == ("mira", 10)


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


def test_r6_the_other_member_rolls_their_own_side_over_http(api: Api, table: Table) -> None:
    body = {
        "kind": "opposed",
        "expression": "1d20+2",
        "no_explode": True,
        "vs": {"name": "bob", "expression": "1d20", "rolls_own_dice": True},
        "faces": [9],
    }
    roll = api.roll(table.sid, table.ann, body).json()
    assert (roll["status"], roll["waiting_for"], roll["waiting_for_dice"]) == (
        "awaiting_rerolls",
        "bob",
        True,
    )
    assert roll["round_totals"] == [[11, None]] and roll["contestants"][1]["total"] is None
    assert [d["side"] for d in roll["dice"]] == [0]
    side = rolls(table, 1, "side")
    refused = api.post(side, table.ann, {"faces": [20]}, key=str(uuid.uuid4()))
    assert refused.status_code == 403 and "only bob may roll it" in refused.json()["detail"]
    stale = api.post(side, table.bob, {"faces": [14], "turn_round": 2}, key=str(uuid.uuid4()))
    assert stale.status_code == 422 and "has moved on" in stale.json()["detail"], stale.json()
    key = str(uuid.uuid4())
    rolled = api.post(side, table.bob, {"faces": [14], "turn_round": 1}, key=key)
    assert rolled.status_code == 200, rolled.json()
    done = rolled.json()
    assert (done["status"], done["winner"], done["round_totals"]) == ("resolved", "bob", [[11, 14]])
    assert done["waiting_for_dice"] is False
    # The same request sent again is answered from memory: bob's die is not rolled twice.
    again = api.post(side, table.bob, {"faces": [14], "turn_round": 1}, key=key)
    assert again.json() == done
    events = api.get(f"/api/v1/sessions/{table.sid}", token=table.gm).json()["rolls"][0]["dice"]
    assert [(d["side"], d["typed_by"]) for d in events] == [(0, "ann"), (1, "bob")]

"""Characters over HTTP: sheets kept by their owners, refusals as problems, rolls from sheets."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from diceledger.infra.store.schema import events
from tests.api.conftest import Api, Table, open_table


def characters(table: Table) -> str:
    return f"/api/v1/sessions/{table.sid}/characters"


def stream_length(api: Api, table: Table) -> int:
    """Return how many events the session's stream holds, read behind the API."""
    query = sa.select(sa.func.count()).where(events.c.stream_id == table.sid)
    with api.db.connect() as connection:
        return int(connection.execute(query).scalar_one())


def made(answer: Any, status: int = 200) -> Any:
    assert answer.status_code == status, answer.text
    return answer.json()


def sheets(api: Api, table: Table) -> None:
    """ann plays Thalia (STR +3), bob plays Brak (STR +1), the GMs keep Goblin (WIS +2)."""
    made(api.post(characters(table), table.ann, {"name": "Thalia"}), 201)
    made(api.post(f"{characters(table)}/Thalia/attributes", table.ann, {"name": "STR", "value": 3}))
    made(api.post(characters(table), table.bob, {"name": "Brak"}), 201)
    made(api.post(f"{characters(table)}/Brak/attributes", table.bob, {"name": "STR", "value": 1}))
    made(api.post(characters(table), table.gm, {"name": "Goblin", "npc": True}), 201)
    made(api.post(f"{characters(table)}/Goblin/attributes", table.gm, {"name": "WIS", "value": 2}))


def test_a_player_creates_and_sets_their_own_character_and_every_member_sees_it(
    api: Api, table: Table
) -> None:
    created = made(api.post(characters(table), table.ann, {"name": "Thalia"}), 201)
    assert created["character"]["owner"] == "ann" and created["checkpoint"]
    body = {"name": "Athletics", "value": 2}
    made(api.post(f"{characters(table)}/Thalia/qualities", table.ann, body))
    listed = made(api.get(characters(table), table.bob))
    assert listed["sheets"] == "player"
    (thalia,) = listed["characters"]
    assert thalia["qualities"][0]["name"] == "Athletics" and thalia["qualities"][0]["value"] == 2


def refused(
    api: Api, table: Table, token: str, path: str, body: Any, status: int, kind: str
) -> str:
    before = stream_length(api, table)
    answer = api.post(path, token, body)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    problem = answer.json()
    assert problem["type"] == f"/problems/{kind}"
    assert stream_length(api, table) == before
    detail: str = problem["detail"]
    return detail


def test_a_foreign_character_is_refused_as_a_problem_and_changes_nothing(
    api: Api, table: Table
) -> None:
    sheets(api, table)
    strength = {"name": "STR", "value": 9}
    path = f"{characters(table)}/Thalia/attributes"
    assert "not yours" in refused(api, table, table.bob, path, strength, 403, "forbidden")
    npc = f"{characters(table)}/Goblin/attributes"
    assert "only a GM" in refused(api, table, table.ann, npc, strength, 403, "forbidden")
    retire = f"{characters(table)}/Thalia/retire"
    assert "not yours" in refused(api, table, table.bob, retire, None, 403, "forbidden")
    # A character of another session is no character of this one.
    other = open_table(api)
    made(api.post(characters(other), other.ann, {"name": "Elsewhere"}), 201)
    elsewhere = f"{characters(table)}/Elsewhere/attributes"
    assert "no character" in refused(api, table, table.gm, elsewhere, strength, 404, "not-found")
    bad = {"name": "strength", "value": 1}
    refused(api, table, table.ann, path, bad, 422, "invalid-input")
    npc_for_player = {"name": "Orc", "npc": True}
    refused(api, table, table.ann, characters(table), npc_for_player, 403, "forbidden")
    sheets_path = f"/api/v1/sessions/{table.sid}/sheets"
    refused(api, table, table.ann, sheets_path, {"sheets": "gm"}, 403, "forbidden")


def test_under_gm_sheets_a_player_cannot_change_their_own_values(api: Api, table: Table) -> None:
    sheets(api, table)
    made(api.post(f"/api/v1/sessions/{table.sid}/sheets", table.gm, {"sheets": "gm"}))
    path = f"{characters(table)}/Thalia/attributes"
    refused(api, table, table.ann, path, {"name": "STR", "value": 5}, 403, "forbidden")
    made(api.post(path, table.gm, {"name": "STR", "value": 5}))


def test_r4_r6_rolls_over_http_read_each_sides_own_sheet(api: Api, table: Table) -> None:
    sheets(api, table)
    check = {"kind": "check", "expression": "1d20+@STR", "target": 12, "faces": [10]}
    rolled = made(api.roll(table.sid, table.ann, check), 201)
    assert rolled["total"] == 13
    save = {
        "kind": "save",
        "expression": "1d20+@STR",
        "dc_from": "WIS",
        "against": "Goblin",
        "faces": [11],
    }
    saved = made(api.roll(table.sid, table.bob, save), 201)
    assert (saved["target"], saved["total"], saved["success"]) == (12, 12, True)
    cheat = {
        "kind": "opposed",
        "expression": "1d20+@STR",
        "vs": {"name": "bob", "expression": "1d20-4"},
    }
    before = stream_length(api, table)
    answer = api.roll(table.sid, table.ann, cheat)
    assert answer.status_code == 422 and answer.json()["type"] == "/problems/roll-refused"
    assert stream_length(api, table) == before
    # Each side reads its own sheet; bob's die is the server's, so either may win.
    fair = {**cheat, "vs": {"name": "bob", "expression": "1d20+@STR"}, "faces": [10]}
    opposed = made(api.roll(table.sid, table.ann, fair), 201)
    assert [c["expression"] for c in opposed["contestants"]] == ["1d20+3[STR]", "1d20+1[STR]"]
    assert opposed["status"] == "resolved" and opposed["winner"] in ("ann", "bob")


def test_a_saved_roll_over_http_is_kept_on_the_sheet_and_rolled_by_name(
    api: Api, table: Table
) -> None:
    sheets(api, table)
    body = {"name": "Longsword", "kind": "check", "expression": "1d20+@STR"}
    kept = made(api.post(f"{characters(table)}/Thalia/saved-rolls", table.ann, body))
    assert kept["character"]["saved_rolls"][0]["expression"] == "1d20+@STR"
    path = f"{characters(table)}/Thalia/saved-rolls"
    refused(api, table, table.bob, path, body, 403, "forbidden")
    swing = {"kind": "check", "saved": "Longsword", "target": 13, "faces": [10]}
    rolled = made(api.roll(table.sid, table.ann, swing), 201)
    assert (rolled["label"], rolled["total"], rolled["success"]) == ("Longsword", 13, True)


CHANGES = {
    "attributes": {"name": "STR", "value": 9},
    "qualities": {"name": "Athletics", "value": 9},
    "saved-rolls": {"name": "Cheat", "kind": "effect", "expression": "1d20+9"},
    "retire": None,
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_every_member_is_refused_a_foreign_character_on_every_character_route(
    api: Api, table: Table, change: str
) -> None:
    # Foreign to a player: another player's character and the GMs' NPC (403). Foreign to
    # every member, GM included: a character of another session (404).
    sheets(api, table)
    other = open_table(api)
    made(api.post(characters(other), other.ann, {"name": "Elsewhere"}), 201)
    body = CHANGES[change]
    for name in ("Brak", "Goblin"):
        path = f"{characters(table)}/{name}/{change}"
        refused(api, table, table.ann, path, body, 403, "forbidden")
    for token in (table.ann, table.bob, table.gm):
        path = f"{characters(table)}/Elsewhere/{change}"
        refused(api, table, token, path, body, 404, "not-found")

"""Campaigns over HTTP: started from a session, extended by its GMs, read by its members.

The dice are typed in. What a caller sees of a campaign is what its token's member may
see in each session; a token of a session outside the campaign finds no campaign, and
every refusal is problem+json that changes nothing.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from tests.api.conftest import Api, Table
from tests.api.scene import snapshot

CAMPAIGNS = "/api/v1/campaigns"


def check(face: int, **more: Any) -> dict[str, Any]:
    return {"kind": "check", "expression": "1d20+1", "target": 11, "faces": [face], **more}


def start(api: Api, table: Table) -> str:
    body = {"title": "Ashen Crown", "session_id": table.sid}
    answer = api.post(CAMPAIGNS, table.gm, body)
    assert answer.status_code == 201, answer.text
    campaign_id: str = answer.json()["campaign_id"]
    return campaign_id


def second_evening(api: Api, campaign_id: str, gm_token: str) -> tuple[str, str, str]:
    """Start a second session in the campaign and let ann join it; (sid, gm, ann) tokens."""
    opened = api.post(f"{CAMPAIGNS}/{campaign_id}/sessions", gm_token, {"title": "Evening two"})
    assert opened.status_code == 201, opened.text
    sid, gm = opened.json()["session_id"], opened.json()["gm_token"]
    code = api.post(f"/api/v1/sessions/{sid}/invites", gm).json()["invite_code"]
    joined = api.post(f"/api/v1/sessions/{sid}/join", body={"invite_code": code, "name": "ann"})
    return sid, gm, joined.json()["player_token"]


def test_two_evenings_of_a_campaign_sum_to_its_totals(api: Api, table: Table) -> None:
    campaign_id = start(api, table)
    api.roll(table.sid, table.ann, check(15))  # won, p = 11/20
    sid, _, ann_two = second_evening(api, campaign_id, table.gm)
    api.roll(sid, ann_two, check(2))  # lost, p = 11/20
    document = api.get(f"{CAMPAIGNS}/{campaign_id}/stats", ann_two).json()
    assert document["campaign_id"] == campaign_id and document["viewer"] == "ann"
    ann = [
        (r["session_id"], r["outcomes"]["won"], r["luck"]["expected"])
        for r in document["reports"]
        if r["player"] == "ann"
    ]
    assert ann == [(table.sid, 1, 0.55), (sid, 0, 0.55), ("ALL", 1, 1.1)]
    text = api.get(f"{CAMPAIGNS}/{campaign_id}/stats", table.ann, format="csv").text
    rows = list(csv.DictReader(io.StringIO(text)))  # pandas is not installed: csv reads it
    made = {
        r["session_id"]: r["value"]
        for r in rows
        if (r["player"], r["group"], r["metric"]) == ("ann", "outcomes", "made")
    }
    assert made == {table.sid: "1", sid: "1", "ALL": "2"}


def test_the_campaign_lists_its_sessions_with_the_callers_role(api: Api, table: Table) -> None:
    campaign_id = start(api, table)
    sid, _, _ = second_evening(api, campaign_id, table.gm)
    shown = api.get(f"{CAMPAIGNS}/{campaign_id}", table.bob).json()
    assert shown["title"] == "Ashen Crown" and shown["started_by"] == "mira"
    assert [(s["session_id"], s["role"]) for s in shown["sessions"]] == [
        (table.sid, "player"),
        (sid, None),  # bob did not join the second evening
    ]


def test_a_hidden_blind_roll_stays_hidden_in_the_campaign_stats(api: Api, table: Table) -> None:
    campaign_id = start(api, table)
    api.roll(table.sid, table.gm, check(17, blind=True, **{"for": "ann"}))
    path = f"{CAMPAIGNS}/{campaign_id}/stats"
    as_ann = api.get(path, table.ann).json()["reports"]
    as_gm = api.get(path, table.gm).json()["reports"]
    ann_total = next(r for r in as_ann if (r["session_id"], r["player"]) == ("ALL", "ann"))
    gm_view = next(r for r in as_gm if (r["session_id"], r["player"]) == ("ALL", "ann"))
    assert (ann_total["outcomes"]["made"], ann_total["excluded"]["hidden"]) == (0, 1)
    assert gm_view["outcomes"]["made"] == 1


def refused(api: Api, answer: Any, status: int, kind: str, before: dict[str, list[str]]) -> None:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["type"] == kind
    assert snapshot(api) == before


def test_a_foreign_campaign_and_a_session_outside_it_find_nothing(api: Api, table: Table) -> None:
    campaign_id = start(api, table)
    other = api.post("/api/v1/sessions", body={"title": "Elsewhere", "name": "olga"}).json()
    theirs = api.post(
        CAMPAIGNS, other["gm_token"], {"title": "Theirs", "session_id": other["session_id"]}
    ).json()
    before = snapshot(api)
    for path in (f"{CAMPAIGNS}/{campaign_id}", f"{CAMPAIGNS}/{campaign_id}/stats"):
        refused(api, api.get(path, other["gm_token"]), 404, "/problems/not-found", before)
    for path in (f"{CAMPAIGNS}/{theirs['campaign_id']}", f"{CAMPAIGNS}/c-nowhere"):
        refused(api, api.get(path, table.gm), 404, "/problems/not-found", before)
    answer = api.post(f"{CAMPAIGNS}/{campaign_id}/sessions", other["gm_token"], {"title": "Mine"})
    refused(api, answer, 404, "/problems/not-found", before)


def test_only_a_gm_starts_a_campaign_or_a_session_in_it(api: Api, table: Table) -> None:
    before = snapshot(api)
    answer = api.post(CAMPAIGNS, table.ann, {"title": "Ann's", "session_id": table.sid})
    refused(api, answer, 403, "/problems/forbidden", before)
    campaign_id = start(api, table)
    before = snapshot(api)
    answer = api.post(f"{CAMPAIGNS}/{campaign_id}/sessions", table.ann, {"title": "Ann's evening"})
    refused(api, answer, 403, "/problems/forbidden", before)
    again = api.post(CAMPAIGNS, table.gm, {"title": "Second", "session_id": table.sid})
    refused(api, again, 409, "/problems/command-refused", before)
    empty = api.post(CAMPAIGNS, table.gm, {"title": "", "session_id": table.sid})
    refused(api, empty, 422, "/problems/invalid-input", before)


@pytest.mark.parametrize("token", [None, "dlt_" + "x" * 43])
def test_a_campaign_needs_a_token(api: Api, table: Table, token: str | None) -> None:
    campaign_id = start(api, table)
    answer = api.get(f"{CAMPAIGNS}/{campaign_id}", token)
    assert (answer.status_code, answer.json()["type"]) == (401, "/problems/unauthenticated")


def test_the_next_evening_starts_with_the_sheets_the_last_one_left(api: Api, table: Table) -> None:
    campaign_id = start(api, table)
    sheets = f"/api/v1/sessions/{table.sid}/characters"
    assert api.post(sheets, table.ann, {"name": "Thalia"}).status_code == 201
    strength = {"name": "STR", "value": 3}
    assert api.post(f"{sheets}/Thalia/attributes", table.ann, strength).status_code == 200
    stronger = {"name": "STR", "value": 4}
    assert api.post(f"{sheets}/Thalia/attributes", table.gm, stronger).status_code == 200
    sid, gm_two, ann_two = second_evening(api, campaign_id, table.gm)
    listed = api.get(f"/api/v1/sessions/{sid}/characters", gm_two).json()["characters"]
    assert [
        (c["name"], c["owner"], [(a["name"], a["value"]) for a in c["attributes"]]) for c in listed
    ] == [("Thalia", "ann", [("STR", 4)])]
    rolled = api.roll(sid, ann_two, {"kind": "effect", "expression": "1d20+@STR", "faces": [11]})
    assert rolled.status_code == 201, rolled.text
    assert rolled.json()["total"] == 15  # 11 + the STR carried from the first evening


def test_a_players_private_roll_counts_in_their_characters_figures_for_them_alone(
    api: Api, table: Table
) -> None:
    campaign_id = start(api, table)
    sheets = f"/api/v1/sessions/{table.sid}/characters"
    assert api.post(sheets, table.ann, {"name": "Thalia"}).status_code == 201
    assert api.roll(table.sid, table.ann, check(15)).status_code == 201
    assert api.roll(table.sid, table.ann, check(16, mode="gm")).status_code == 201
    path = f"{CAMPAIGNS}/{campaign_id}/stats"

    def thalia(token: str) -> tuple[int, int]:
        characters = api.get(path, token).json()["characters"]
        total = next(
            r for r in characters if (r["session_id"], r["character"]) == ("ALL", "Thalia")
        )
        return total["outcomes"]["made"], total["excluded"]["hidden"]

    assert thalia(table.ann) == (2, 0)  # her own gm roll is hers to count
    assert thalia(table.bob) == (1, 1)  # bob may not see it
    assert thalia(table.gm) == (2, 0)  # a GM sees a gm roll

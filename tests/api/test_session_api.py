"""The session API end to end: open, invite, join, roll, dispute, rule; nothing rolled twice."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from diceledger.domain.errors import PermissionDeniedError
from diceledger.domain.json import JsonObject
from diceledger.infra.access.schema import member_tokens
from diceledger.infra.access.store import AccessStore
from diceledger.infra.app.access import AccessService
from diceledger.infra.vault.schema import seed_vault
from tests.api.conftest import Api, Table

CHECK: JsonObject = {
    "kind": "check",
    "expression": "1d20+5",
    "target": 15,
    "adv": [{"amount": 1, "label": "flank"}],
}


def events_of(api: Api, table: Table) -> int:
    return api.services.app.session("mira", table.sid).version


def test_a_gm_opens_a_session_and_is_shown_the_token_once(api: Api) -> None:
    answer = api.post("/api/v1/sessions", body={"title": "Tomb of Ash", "name": "mira"})
    assert answer.status_code == 201
    body = answer.json()
    assert body["gm_token"].startswith("dlt_") and len(body["gm_token"]) >= 43
    assert len(body["commitment"]) == 64
    shown = api.get(f"/api/v1/sessions/{body['session_id']}", body["gm_token"]).json()
    assert shown["gm"] == "mira" and body["gm_token"] not in str(shown)


def test_players_join_by_invite_and_roll_as_themselves(api: Api, table: Table) -> None:
    rolled = api.roll(table.sid, table.ann, CHECK)
    assert rolled.status_code == 201
    roll = rolled.json()
    assert roll["for"] == "ann" and roll["roller"] == "ann" and roll["kind"] == "check"
    assert len([d for d in roll["dice"] if d["reason"] == "initial"]) == 2  # advantage 1


def test_the_acting_member_comes_from_the_token_never_the_body(api: Api, table: Table) -> None:
    # "for" names someone else: only a GM may roll for another, so ann is refused.
    answer = api.roll(table.sid, table.ann, {**CHECK, "for": "bob"})
    assert answer.status_code == 403
    assert answer.headers["content-type"] == "application/problem+json"
    # A body naming the actor is not a field at all.
    refused = api.roll(table.sid, table.ann, {**CHECK, "actor": "mira"})
    assert refused.status_code == 422 and "actor" in refused.json()["detail"]


def test_an_invite_is_single_use(api: Api, table: Table) -> None:
    code = api.post(f"/api/v1/sessions/{table.sid}/invites", table.gm).json()["invite_code"]
    first = api.post(
        f"/api/v1/sessions/{table.sid}/join", body={"invite_code": code, "name": "cara"}
    )
    second = api.post(
        f"/api/v1/sessions/{table.sid}/join", body={"invite_code": code, "name": "dan"}
    )
    assert first.status_code == 201 and second.status_code == 403
    assert "unknown, used or expired" in second.json()["detail"]


def test_a_refused_join_leaves_the_invite_usable(api: Api, table: Table) -> None:
    code = api.post(f"/api/v1/sessions/{table.sid}/invites", table.gm).json()["invite_code"]
    taken = api.post(
        f"/api/v1/sessions/{table.sid}/join", body={"invite_code": code, "name": "ann"}
    )
    assert taken.status_code == 409
    joined = api.post(
        f"/api/v1/sessions/{table.sid}/join", body={"invite_code": code, "name": "cara"}
    )
    assert joined.status_code == 201


def test_a_post_repeated_with_the_same_idempotency_key_rolls_once(api: Api, table: Table) -> None:
    path = f"/api/v1/sessions/{table.sid}/rolls"
    before = events_of(api, table)
    first = api.post(path, table.ann, CHECK, key="retry-1")
    again = api.post(path, table.ann, CHECK, key="retry-1")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["Idempotency-Replayed"] == "true"
    after = events_of(api, table)
    assert after - before == len([e for e in range(before, after)])  # one roll's events
    rolls = api.get(f"/api/v1/sessions/{table.sid}", table.gm).json()["rolls"]
    assert len(rolls) == 1


def test_a_key_reused_with_another_body_is_refused_and_rolls_nothing(
    api: Api, table: Table
) -> None:
    path = f"/api/v1/sessions/{table.sid}/rolls"
    api.post(path, table.ann, CHECK, key="k")
    before = events_of(api, table)
    other = api.post(path, table.ann, {**CHECK, "target": 16}, key="k")
    assert other.status_code == 422 and other.json()["type"] == "/problems/idempotency-key-reused"
    assert events_of(api, table) == before


def test_a_roll_without_an_idempotency_key_is_refused(api: Api, table: Table) -> None:
    before = events_of(api, table)
    answer = api.post(f"/api/v1/sessions/{table.sid}/rolls", table.ann, CHECK)
    assert answer.status_code == 422 and "Idempotency-Key" in answer.json()["detail"]
    assert events_of(api, table) == before


def test_a_retried_join_gives_the_same_member_a_fresh_token(api: Api, table: Table) -> None:
    code = api.post(f"/api/v1/sessions/{table.sid}/invites", table.gm).json()["invite_code"]
    body = {"invite_code": code, "name": "cara"}
    first = api.post(f"/api/v1/sessions/{table.sid}/join", body=body, key="j1").json()
    again = api.post(f"/api/v1/sessions/{table.sid}/join", body=body, key="j1").json()
    assert first["name"] == again["name"] == "cara"
    assert first["player_token"] != again["player_token"]
    for token in (first["player_token"], again["player_token"]):
        assert api.get(f"/api/v1/sessions/{table.sid}", token).status_code == 200
    members = api.get(f"/api/v1/sessions/{table.sid}/members", table.gm).json()["members"]
    assert [m["name"] for m in members].count("cara") == 1


def test_a_dispute_is_reviewed_and_ruled_by_the_gm(api: Api, table: Table) -> None:
    roll_id = api.roll(table.sid, table.bob, CHECK).json()["roll_id"]
    base = f"/api/v1/sessions/{table.sid}/rolls/{roll_id}"
    opened = api.post(f"{base}/dispute", table.bob, {"reason": "the die fell off"})
    assert opened.status_code == 201 and opened.json()["outcome"] == "open"
    assert api.get(f"{base}/review", table.ann).status_code == 403
    review = api.get(f"{base}/review", table.gm).json()
    assert review["roll_id"] == roll_id and review["disputes"][0]["reason"] == "the die fell off"
    ruled = api.post(f"{base}/ruling", table.gm, {"outcome": "voided", "note": "fell off"})
    assert ruled.status_code == 200 and ruled.json()["outcome"] == "voided"


def test_a_revoked_token_is_refused_and_the_member_stays_in_the_log(api: Api, table: Table) -> None:
    revoked = api.post(f"/api/v1/sessions/{table.sid}/members/bob/revoke", table.gm)
    assert revoked.json()["revoked_tokens"] == 1
    answer = api.get(f"/api/v1/sessions/{table.sid}", table.bob)
    assert answer.status_code == 401 and "revoked" in answer.json()["detail"]
    members = api.get(f"/api/v1/sessions/{table.sid}", table.gm).json()["members"]
    assert "bob" in [m["name"] for m in members]


def test_a_token_of_one_session_is_worthless_in_another(api: Api, table: Table) -> None:
    other = api.post("/api/v1/sessions", body={"title": "Other"}).json()
    answer = api.get(f"/api/v1/sessions/{other['session_id']}", table.gm)
    assert answer.status_code == 404 and answer.json()["type"] == "/problems/unknown-session"


def test_a_player_never_sees_a_blind_roll_or_the_unrevealed_seed(api: Api, table: Table) -> None:
    blind = api.roll(table.sid, table.gm, {**CHECK, "blind": True, "for": "orc", "label": "ambush"})
    assert blind.status_code == 201
    shown = api.get(f"/api/v1/sessions/{table.sid}", table.ann).json()
    hidden = [r for r in shown["rolls"] if r["roll_id"] == blind.json()["roll_id"]][0]
    assert hidden == {
        "session_id": table.sid,
        "roll_id": blind.json()["roll_id"],
        "roller": "mira",
        "mode": "blind",
        "blind": True,
        "status": "hidden",
        "text": "the GM rolled blind",
    }
    assert all(epoch["seed"] is None for epoch in shown["epochs"])
    export = api.get(f"/api/v1/sessions/{table.sid}/export", table.ann)
    assert export.status_code == 200
    # The blind roll's events are sealed: their links in the chain, nothing of the roll.
    assert "ambush" not in export.text and "orc" not in export.text


def test_bad_input_is_one_problem_line_and_changes_nothing(api: Api, table: Table) -> None:
    before = events_of(api, table)
    cases: list[tuple[JsonObject, int, str]] = [
        ({**CHECK, "expression": "1d21"}, 422, "/problems/dice-notation"),
        ({**CHECK, "dc": 3}, 422, "/problems/invalid-input"),
        (
            {"kind": "roll", "expression": "1d6", "adv": [{"amount": 1}]},
            422,
            "/problems/roll-refused",
        ),
        ({"kind": "fly", "expression": "1d6"}, 422, "/problems/invalid-input"),
    ]
    for body, status, kind in cases:
        answer = api.roll(table.sid, table.ann, body)
        assert (answer.status_code, answer.json()["type"]) == (status, kind), body
        assert "\n" not in answer.json()["detail"]
    assert events_of(api, table) == before


def test_a_body_over_the_limit_is_refused_with_413(api: Api, table: Table) -> None:
    answer = api.client.post(
        f"/api/v1/sessions/{table.sid}/rolls",
        content=b'{"kind": "roll", "expression": "' + b"1" * 70_000 + b'"}',
        headers={"Authorization": f"Bearer {table.ann}", "Content-Type": "application/json"},
    )
    assert answer.status_code == 413 and answer.json()["type"] == "/problems/payload-too-large"


@pytest.mark.parametrize("query", [{"dc": 3, "adv": [1]}, {"target": 13, "adv": [1]}])
def test_odds_over_http_are_the_cli_odds(api: Api, query: dict[str, int | list[int]]) -> None:
    from diceledger.infra.app.odds import OddsQuery, Side, odds_of

    answer = api.client.get("/api/v1/odds", params={"expression": "1d20+3", **query}).json()
    expected = odds_of(OddsQuery(Side("1d20+3", (1,)), target=13)).as_json()
    assert answer["success"] == expected["success"] and answer["success"]["fraction"] == "319/400"


def test_r11_odds_over_http_give_the_best_reroll_chance_beside_the_default(api: Api) -> None:
    params: dict[str, str | int] = {"expression": "1d20", "target": 13, "reroll": 1}
    answer = api.client.get("/api/v1/odds", params=params).json()
    assert answer["success"]["fraction"] == "3/5"  # the default policy: reroll 1-10
    assert answer["best_success"] == {"fraction": "16/25", "float": 0.64}  # reroll 1-12
    plain = api.client.get("/api/v1/odds", params={"expression": "1d20", "target": 13}).json()
    assert plain["best_success"] is None
    schema = api.get("/openapi.json").json()["components"]["schemas"]["Odds"]["properties"]
    assert "best_success" in schema


def test_the_openapi_document_lists_the_routes(api: Api) -> None:
    paths = api.get("/openapi.json").json()["paths"]
    assert "/api/v1/sessions/{session_id}/rolls" in paths
    assert "/api/v1/sessions/{session_id}/rolls/{roll_id}/reroll" in paths


def live_tokens(api: Api, table: Table) -> dict[str, int]:
    members = api.get(f"/api/v1/sessions/{table.sid}/members", table.gm).json()["members"]
    return {m["name"]: m["live_tokens"] for m in members}


def test_a_revoked_member_cannot_retry_their_join_into_a_fresh_token(
    api: Api, table: Table
) -> None:
    code = api.post(f"/api/v1/sessions/{table.sid}/invites", table.gm).json()["invite_code"]
    body = {"invite_code": code, "name": "cara"}
    assert api.post(f"/api/v1/sessions/{table.sid}/join", body=body, key="j1").status_code == 201
    api.post(f"/api/v1/sessions/{table.sid}/members/cara/revoke", table.gm)
    retried = api.post(f"/api/v1/sessions/{table.sid}/join", body=body, key="j1")
    assert retried.status_code == 403 and "player_token" not in retried.text
    assert live_tokens(api, table)["cara"] == 0


def test_a_join_retried_after_its_invite_expired_mints_no_token(api: Api, table: Table) -> None:
    now = [datetime.now(UTC)]
    store = AccessStore(api.db)
    access = AccessService(api.services.app, store, api.services.requests, lambda: now[0])
    gm = api.services.access.authenticate(table.gm)
    invite = access.invite(gm, timedelta(minutes=5))
    access.join(table.sid, invite.code, "cara", retry_key="j1")
    now[0] += timedelta(minutes=6)
    with pytest.raises(PermissionDeniedError):
        access.join(table.sid, invite.code, "cara", retry_key="j1")
    with api.db.connect() as connection:
        count = sa.select(sa.func.count()).where(member_tokens.c.member == "cara")
        assert connection.execute(count).scalar() == 1


def test_a_gm_can_make_a_member_co_gm_but_not_a_stranger(api: Api, table: Table) -> None:
    stranger = api.post(f"/api/v1/sessions/{table.sid}/members/ghost/co-gm", table.gm)
    assert stranger.status_code == 404 and stranger.json()["type"] == "/problems/not-found"
    shown = api.get(f"/api/v1/sessions/{table.sid}", table.gm).json()
    assert "ghost" not in [m["name"] for m in shown["members"]]
    promoted = api.post(f"/api/v1/sessions/{table.sid}/members/ann/co-gm", table.gm)
    assert promoted.json()["role"] == "gm"


def test_a_refused_request_leaves_its_idempotency_key_free(api: Api, table: Table) -> None:
    end = f"/api/v1/sessions/{table.sid}/end"
    assert api.post(end, table.ann, key="end-1").status_code == 403
    api.post(f"/api/v1/sessions/{table.sid}/members/ann/co-gm", table.gm)
    ended = api.post(end, table.ann, key="end-1")
    assert ended.status_code == 200 and "Idempotency-Replayed" not in ended.headers


def vault_rows(api: Api) -> int:
    with api.db.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(seed_vault)).scalar_one()


def test_a_refused_seed_reveal_or_session_start_keeps_no_new_seed(api: Api, table: Table) -> None:
    before = vault_rows(api)
    assert api.post(f"/api/v1/sessions/{table.sid}/seed/reveal", table.ann).status_code == 403
    assert (
        api.post("/api/v1/sessions", body={"title": "   "}).status_code == 422
    )  # a blank title is invalid input
    assert vault_rows(api) == before
    assert api.post(f"/api/v1/sessions/{table.sid}/seed/reveal", table.gm).status_code == 200
    assert vault_rows(api) == before + 1


def test_the_access_log_never_shows_a_secret_put_in_a_path(
    api: Api, table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    code = api.post(f"/api/v1/sessions/{table.sid}/invites", table.gm).json()["invite_code"]
    with caplog.at_level(logging.INFO, logger="diceledger.access"):
        assert api.get(f"/join/{table.sid}/{code}").status_code == 404  # a link opened here
        api.get(f"/api/v1/sessions/{table.sid}/members/{table.ann}/revoke", table.gm)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert f"GET /join/{table.sid}/dli_... 404" in logged
    assert code not in logged and table.ann not in logged and table.gm not in logged


def test_the_access_log_never_shows_a_sign_in_code_of_a_sign_in_page(
    api: Api, table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    made = api.post(f"/api/v1/sessions/{table.sid}/sign-in-codes", table.ann).json()
    path = made["sign_in_path"]
    with caplog.at_level(logging.INFO, logger="diceledger.access"):
        assert api.client.get(path).status_code == 200  # its confirmation page
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "GET /sign-in/dls_... 200" in logged
    assert path.removeprefix("/sign-in/") not in logged


def test_a_roll_says_how_its_total_is_made_up(api: Api, table: Table) -> None:
    body: JsonObject = {
        **CHECK,
        "expression": "1d20+3[STR]",
        "adv": [{"amount": 1, "label": "flank"}, {"amount": 1, "label": "high ground"}],
        "dis": [{"amount": 1, "label": "mud"}],
        "eased": [{"amount": 2, "label": "bless"}],
        "faces": [4, 17],
    }
    roll = api.roll(table.sid, table.ann, body).json()
    assert roll["score"] == 1 and roll["median"] is False
    assert [s["label"] for s in roll["advantage"]] == ["flank", "high ground"]
    assert roll["eased"] == [{"amount": 2, "label": "bless"}] and roll["hindered"] == []
    assert [(p["text"], p["value"]) for p in roll["parts"]] == [("1d20", 17), ("3[STR]", 3)]
    assert roll["total"] == 22 and roll["divisors"] == []


def test_an_invite_links_to_the_join_page_by_its_code_alone(api: Api, table: Table) -> None:
    made = api.post(f"/api/v1/sessions/{table.sid}/invites", table.gm).json()
    assert made["join_path"] == f"/join/{made['invite_code']}"
    assert api.services.access.invite_session(made["invite_code"]) == table.sid


def test_an_invite_dies_with_its_makers_gm_access(api: Api, table: Table) -> None:
    assert api.post(f"/api/v1/sessions/{table.sid}/members/ann/co-gm", table.gm).status_code < 300
    made = api.post(f"/api/v1/sessions/{table.sid}/invites", table.ann).json()["invite_code"]
    kept = api.post(f"/api/v1/sessions/{table.sid}/invites", table.gm).json()["invite_code"]
    api.post(f"/api/v1/sessions/{table.sid}/members/ann/revoke", table.gm)
    body = {"invite_code": made, "name": "cara"}
    refused = api.post(f"/api/v1/sessions/{table.sid}/join", body=body)
    assert refused.status_code == 403 and "player_token" not in refused.text
    assert api.get(f"/join/{made}").status_code == 403
    shown = api.get(f"/api/v1/sessions/{table.sid}", table.gm).json()
    assert "cara" not in [m["name"] for m in shown["members"]]
    # The GM's own invite, made before, still admits.
    body = {"invite_code": kept, "name": "cara"}
    assert api.post(f"/api/v1/sessions/{table.sid}/join", body=body).status_code == 201

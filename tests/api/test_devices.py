"""Members and devices: a GM's sign-in link for any member, at most five live devices per
member, a member's own list of devices to sign out, and rate limits counted per member.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from diceledger.web.context import Settings
from tests.api.conftest import Api, Table, build_api, open_table
from tests.infra.support import database_url

CHECK = {"kind": "check", "expression": "1d20+5", "target": 15}


def devices_path(table: Table) -> str:
    return f"/api/v1/sessions/{table.sid}/devices"


def link_for(api: Api, table: Table, name: str, token: str) -> str:
    """Return the sign-in path a GM made for ``name``, asserting it was made."""
    made = api.post(f"/api/v1/sessions/{table.sid}/members/{name}/sign-in-codes", token)
    assert made.status_code == 201, made.text
    path: str = made.json()["sign_in_path"]
    assert made.json()["name"] == name
    return path


def signed_in_by_page(api: Api, path: str) -> TestClient:
    """Follow a sign-in link in a fresh browser and confirm it; return that browser."""
    browser = TestClient(api.client.app)
    page = browser.get(path)
    assert page.status_code == 200, page.text
    field = 'name="form_token" value="'
    form_token = page.text.split(field, 1)[1].split('"', 1)[0]
    confirmed = browser.post(path, data={"form_token": form_token}, follow_redirects=False)
    assert confirmed.status_code == 303, confirmed.text
    return browser


def new_device(api: Api, table: Table, token: str) -> str:
    """Sign the token's member in once more, by a code they made; return the new token."""
    made = api.post(f"/api/v1/sessions/{table.sid}/sign-in-codes", token).json()
    code = made["sign_in_path"].removeprefix("/sign-in/")
    return api.services.access.sign_in(code).token


def test_a_gm_makes_a_sign_in_link_that_signs_the_player_in(api: Api, table: Table) -> None:
    browser = signed_in_by_page(api, link_for(api, table, "ann", table.gm))
    assert "Signed in as <strong>ann</strong>" in browser.get(f"/s/{table.sid}").text


def test_a_player_cannot_make_a_sign_in_link_for_someone_else(api: Api, table: Table) -> None:
    refused = api.post(f"/api/v1/sessions/{table.sid}/members/bob/sign-in-codes", table.ann)
    assert refused.status_code == 403
    assert "only a GM" in refused.json()["detail"]


def test_no_sign_in_link_for_a_stranger_or_a_revoked_member(api: Api, table: Table) -> None:
    codes = f"/api/v1/sessions/{table.sid}/members/{{}}/sign-in-codes"
    assert api.post(codes.format("zed"), table.gm).status_code == 404
    api.post(f"/api/v1/sessions/{table.sid}/members/bob/revoke", table.gm)
    refused = api.post(codes.format("bob"), table.gm)
    assert refused.status_code == 403
    assert "revoked" in refused.json()["detail"]


def test_a_sixth_device_signs_out_the_oldest(api: Api, table: Table) -> None:
    tokens = [table.ann] + [new_device(api, table, table.ann) for _ in range(5)]
    assert api.get(f"/api/v1/sessions/{table.sid}", tokens[0]).status_code == 401
    assert "signed out" in api.get(f"/api/v1/sessions/{table.sid}", tokens[0]).json()["detail"]
    for token in tokens[1:]:
        assert api.get(f"/api/v1/sessions/{table.sid}", token).status_code == 200
    listed = api.get(devices_path(table), tokens[-1]).json()["devices"]
    assert len(listed) == 5
    assert [d["this_device"] for d in listed] == [False, False, False, False, True]
    members = api.get(f"/api/v1/sessions/{table.sid}/members", table.gm).json()["members"]
    assert {m["name"]: m["live_tokens"] for m in members}["ann"] == 5


def test_a_member_lists_and_signs_out_their_own_devices(api: Api, table: Table) -> None:
    phone = new_device(api, table, table.ann)
    listed = api.get(devices_path(table), table.ann).json()
    assert listed["name"] == "ann"
    ids = [d["device_id"] for d in listed["devices"]]
    assert len(ids) == 2 and all(d["signed_in_at"].endswith("Z") for d in listed["devices"])
    phone_id = next(d["device_id"] for d in listed["devices"] if not d["this_device"])
    signed_out = api.post(f"{devices_path(table)}/{phone_id}/sign-out", table.ann)
    assert signed_out.status_code == 200, signed_out.text
    assert api.get(f"/api/v1/sessions/{table.sid}", phone).status_code == 401
    assert [d["device_id"] for d in api.get(devices_path(table), table.ann).json()["devices"]] == [
        i for i in ids if i != phone_id
    ]


def test_a_member_cannot_sign_out_anothers_device(api: Api, table: Table) -> None:
    bobs = api.get(devices_path(table), table.bob).json()["devices"][0]["device_id"]
    refused = api.post(f"{devices_path(table)}/{bobs}/sign-out", table.ann)
    assert refused.status_code == 404
    assert api.get(f"/api/v1/sessions/{table.sid}", table.bob).status_code == 200


def test_signing_out_is_no_revocation_the_member_signs_in_again(api: Api, table: Table) -> None:
    own = api.get(devices_path(table), table.ann).json()["devices"][0]["device_id"]
    assert api.post(f"{devices_path(table)}/{own}/sign-out", table.ann).status_code == 200
    assert api.get(f"/api/v1/sessions/{table.sid}", table.ann).status_code == 401
    browser = signed_in_by_page(api, link_for(api, table, "ann", table.gm))
    assert "Signed in as <strong>ann</strong>" in browser.get(f"/s/{table.sid}").text


@pytest.fixture(params=[pytest.param("sqlite", id="sqlite")])
def limited(request: pytest.FixtureRequest) -> Iterator[Api]:
    url = database_url(request.param, request)
    assert url is not None
    built = build_api(url, Settings(rolls_per_minute=3))
    try:
        with built.client:
            yield built
    finally:
        built.services.app.close()
        built.db.dispose()


def test_the_roll_limit_counts_per_member_not_per_token(limited: Api) -> None:
    table = open_table(limited)
    second = new_device(limited, table, table.ann)
    for token in (table.ann, second, table.ann):
        assert limited.roll(table.sid, token, CHECK).status_code == 201
    refused = limited.roll(table.sid, second, CHECK)
    assert refused.status_code == 429
    assert "at most 3 rolls" in refused.json()["detail"]
    assert limited.roll(table.sid, table.bob, CHECK).status_code == 201


def test_a_roll_without_its_idempotency_key_is_refused_as_such_past_the_limit(
    limited: Api,
) -> None:
    table = open_table(limited)
    for _ in range(3):
        assert limited.roll(table.sid, table.ann, CHECK).status_code == 201
    keyless = limited.post(f"/api/v1/sessions/{table.sid}/rolls", table.ann, CHECK)
    assert keyless.status_code == 422, keyless.text
    assert "Idempotency-Key" in keyless.json()["detail"]
    assert limited.roll(table.sid, table.ann, CHECK).status_code == 429


def test_the_not_signed_in_page_tells_both_ways_back_in(api: Api, table: Table) -> None:
    stranger = TestClient(api.client.app)
    page = stranger.get(f"/s/{table.sid}")
    assert page.status_code == 401
    assert "Sign in on another device" in page.text  # from a device still signed in
    assert "sign-in link for you" in page.text  # or from the GM, with no device left
    assert "under a name not taken yet" not in page.text


def test_the_gm_panel_offers_a_sign_in_link_for_each_other_member(api: Api, table: Table) -> None:
    gm_browser = signed_in_by_page(api, new_link(api, table, table.gm))
    panel = gm_browser.get(f"/s/{table.sid}/gm").text
    for name in ("ann", "bob"):
        assert f'aria-label="Make a sign-in link for {name}">Sign-in link</button>' in panel
    assert "Make a sign-in link for mira" not in panel


def test_the_table_explains_the_device_cap_and_lists_devices(api: Api, table: Table) -> None:
    page = signed_in_by_page(api, new_link(api, table, table.ann)).get(f"/s/{table.sid}").text
    assert "signed in on 5 devices at once" in page
    assert 'id="show-devices"' in page


def new_link(api: Api, table: Table, token: str) -> str:
    """Return a sign-in path the token's member made for themself."""
    path: str = api.post(f"/api/v1/sessions/{table.sid}/sign-in-codes", token).json()[
        "sign_in_path"
    ]
    return path

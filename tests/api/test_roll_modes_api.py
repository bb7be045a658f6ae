"""Each roll mode through the API, as each role reads it: the roll, the session, the
replay, the export, the receipt and the statistics (a foreign session's member sees none)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.api.conftest import Api, Table, open_table

# Ann's check, its die typed in: 14 + 5 = 19 against 15.
ANNS_CHECK = {"kind": "check", "expression": "1d20+5", "target": 15, "faces": [14]}
MODES = ("public", "gm", "blind", "self")
ROLES = ("mira", "ann", "bob")  # the GM, the roller, another player
SEEN_BY = {
    "public": {"mira", "ann", "bob"},
    "gm": {"mira", "ann"},
    "blind": {"mira"},
    "self": {"ann"},
}
WORDS = {"gm": "ann rolled privately", "blind": "ann rolled blind", "self": "ann rolled for"}
# A roll not public counts for a GM (but a self roll, which no GM sees), for its roller when
# they may see it (their own figures: scope own), and for no other player until revealed.
COUNTED_FOR = {
    "public": {"mira", "ann", "bob"},
    "gm": {"mira", "ann"},
    "blind": {"mira"},
    "self": {"ann"},
}


def rolled(api: Api, table: Table, mode: str) -> int:
    made = api.roll(table.sid, table.ann, {**ANNS_CHECK, "mode": mode})
    assert made.status_code == 201, made.text
    # The roller's own answer already follows the mode: a blind roll is hidden from ann too.
    assert ("total" in made.json()) == ("ann" in SEEN_BY[mode])
    roll_id: int = made.json()["roll_id"]
    return roll_id


def stats_of_ann(api: Api, table: Table, token: str) -> dict[str, Any]:
    reports = api.get(f"/api/v1/sessions/{table.sid}/stats", token).json()["reports"]
    (ann,) = [r for r in reports if r["player"] == "ann"]
    return dict(ann)


@pytest.mark.parametrize("mode", MODES)
def test_each_mode_shows_a_roll_to_exactly_its_audience_in_every_read(
    api: Api, table: Table, mode: str
) -> None:
    roll_id = rolled(api, table, mode)
    base = f"/api/v1/sessions/{table.sid}"
    for role in ROLES:
        token = table.tokens[role]
        seen = role in SEEN_BY[mode]
        view = api.get(f"{base}/rolls/{roll_id}", token).json()
        assert ("total" in view) == seen, (mode, role)
        if not seen:
            assert view["status"] == "hidden" and view["mode"] == mode
            assert view["text"].startswith(WORDS[mode]) and "1d20" not in json.dumps(view)
        listed = api.get(base, token).json()["rolls"]
        assert [("total" in r) for r in listed] == [seen]
        lines = api.get(f"{base}/replay", token).json()["lines"]
        requested = [line for line in lines if line["event"] == "RollRequested"]
        assert ("1d20+5" in requested[0]["text"]) == seen
        export = api.get(f"{base}/export", token)
        assert export.status_code == 200
        sealed = [json.loads(x) for x in export.text.splitlines() if '"sealed":true' in x]
        assert bool(sealed) != seen and all(s["roll_id"] == roll_id for s in sealed)
        receipt = api.get(f"{base}/rolls/{roll_id}/receipt", token)
        assert (receipt.status_code == 200) == seen, (mode, role, receipt.text)
        review = api.get(f"{base}/rolls/{roll_id}/review", token)  # a GM's page
        assert (review.status_code == 200) == (seen and role == "mira"), (mode, role)
        counted = stats_of_ann(api, table, token)
        assert counted["excluded"]["hidden"] == (0 if role in COUNTED_FOR[mode] else 1)
        made = counted["outcomes"]["made"]
        assert made == (1 if role in COUNTED_FOR[mode] else 0), (mode, role)


@pytest.mark.parametrize("mode", MODES)
def test_a_member_of_another_session_sees_no_roll_in_any_mode(
    api: Api, table: Table, mode: str
) -> None:
    roll_id = rolled(api, table, mode)
    foreign = open_table(api)
    base = f"/api/v1/sessions/{table.sid}"
    for path in (f"/rolls/{roll_id}", "", "/replay", "/export", f"/rolls/{roll_id}/receipt"):
        answer = api.get(base + path, foreign.gm)
        assert answer.status_code in (403, 404), (path, answer.status_code)
        assert "1d20" not in answer.text


def test_blind_true_is_still_mode_blind_and_says_so(api: Api, table: Table) -> None:
    made = api.roll(table.sid, table.ann, {**ANNS_CHECK, "blind": True})
    assert made.status_code == 201 and made.json()["mode"] == "blind"
    clash = api.roll(table.sid, table.ann, {**ANNS_CHECK, "blind": True, "mode": "gm"})
    assert clash.status_code == 422
    assert clash.json()["detail"] == "blind is mode blind; give one, not mode gm"
    unknown = api.roll(table.sid, table.ann, {**ANNS_CHECK, "mode": "secret"})
    assert unknown.status_code == 422
    session = api.get(f"/api/v1/sessions/{table.sid}", table.gm).json()
    assert len(session["rolls"]) == 1  # nothing appended by the refusals


def test_who_may_reveal_each_mode(api: Api, table: Table) -> None:
    base = f"/api/v1/sessions/{table.sid}/rolls"
    private, own = rolled(api, table, "gm"), rolled(api, table, "self")
    assert api.post(f"{base}/{private}/reveal", table.ann).status_code == 403
    assert api.post(f"{base}/{own}/reveal", table.gm).status_code == 404  # the GM cannot see it
    assert api.post(f"{base}/{own}/reveal", table.bob).status_code == 403
    assert api.post(f"{base}/{private}/reveal", table.gm).status_code == 200
    shown = api.post(f"{base}/{own}/reveal", table.ann)
    assert shown.status_code == 200 and shown.json()["hidden"] is False
    for token in (table.gm, table.bob):
        assert all(
            "total" in r for r in api.get(f"/api/v1/sessions/{table.sid}", token).json()["rolls"]
        )


def test_the_end_shows_a_self_roll_to_everyone_and_counts_it(api: Api, table: Table) -> None:
    own, private = rolled(api, table, "self"), rolled(api, table, "gm")
    assert stats_of_ann(api, table, table.gm)["excluded"]["hidden"] == 1
    assert api.post(f"/api/v1/sessions/{table.sid}/end", table.gm).status_code == 200
    for role in ROLES:
        token = table.tokens[role]
        assert "total" in api.get(f"/api/v1/sessions/{table.sid}/rolls/{own}", token).json()
        shown = api.get(f"/api/v1/sessions/{table.sid}/rolls/{private}", token).json()
        assert ("total" in shown) == (role in SEEN_BY["gm"])  # a gm roll stays as it was
    # Only the gm roll is left out now, and for the players only.
    assert stats_of_ann(api, table, table.gm)["excluded"]["hidden"] == 0
    assert stats_of_ann(api, table, table.bob)["excluded"]["hidden"] == 1

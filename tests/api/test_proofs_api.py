"""Signed logs over HTTP: keys, checkpoints, proofs a browser can check, receipts, answers."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from diceledger.domain.checkpoint import Checkpoint, check_extends
from diceledger.domain.errors import VerificationError
from diceledger.domain.merkle import ConsistencyProof, InclusionProof, verify_inclusion
from diceledger.domain.receipt import Receipt, verify_receipt
from diceledger.domain.signed_note import SignedNote, VerifierKey
from diceledger.infra.ledger.signing import check_rotation, ed25519_check, open_signed_checkpoint
from diceledger.web.asgi import create
from tests.api.conftest import Api, Table, build_api, open_table

ROLL = {"kind": "effect", "expression": "1d6", "faces": [4]}


def head(note: str) -> Checkpoint:
    return Checkpoint.parse(SignedNote.parse(note).text)


def trusted(api: Api) -> tuple[VerifierKey, ...]:
    keys = api.get("/api/v1/keys").json()["keys"]
    return tuple(VerifierKey.parse(key["verifier_key"]) for key in keys)


def test_anyone_may_read_the_servers_verifier_keys(api: Api) -> None:
    answer = api.get("/api/v1/keys")
    assert answer.status_code == 200
    (current,) = answer.json()["keys"]
    key = VerifierKey.parse(current["verifier_key"])
    assert current == {
        "verifier_key": str(key),
        "name": key.name,
        "key_id": key.key_id.hex(),
        "current": True,
    }


def test_every_state_changing_route_answers_with_its_checkpoint(api: Api, table: Table) -> None:
    sid, path = table.sid, f"/api/v1/sessions/{table.sid}"
    reroll = {"dice": [0], "faces": [5]}
    answers: list[Any] = [
        api.post("/api/v1/sessions", body={"title": "Other", "name": "mira"}).json(),
        api.roll(sid, table.ann, {**ROLL, "reroll": 1}).json(),
        api.post(f"{path}/rolls/1/reroll", table.ann, reroll, str(uuid.uuid4())).json(),
        api.roll(sid, table.bob, {**ROLL, "reroll": 1}).json(),
        api.post(f"{path}/rolls/2/accept", table.bob).json(),
        api.roll(sid, table.gm, {**ROLL, "blind": True, "for": "orc"}).json(),
        api.post(f"{path}/rolls/3/reveal", table.gm).json(),
        api.post(f"{path}/rolls/1/dispute", table.bob, {"reason": "cocked"}).json(),
        api.post(f"{path}/rolls/1/ruling", table.gm, {"outcome": "upheld"}).json(),
        api.post(f"{path}/members/ann/co-gm", table.gm).json(),
        api.post(f"{path}/seed/reveal", table.gm).json(),
        api.post(f"{path}/end", table.gm).json(),
    ]
    keys = trusted(api)
    sizes = [open_signed_checkpoint(a["checkpoint"], keys).checkpoint.size for a in answers[1:]]
    assert sizes == sorted(sizes)
    assert sizes[-1] == api.get(f"{path}/checkpoint", table.gm).json()["size"]
    assert answers[1]["roll_id"] == 1 and answers[1]["status"] == "awaiting_rerolls"


def test_a_join_by_invite_answers_with_the_checkpoint_of_the_join(api: Api, table: Table) -> None:
    code = api.post(f"/api/v1/sessions/{table.sid}/invites", table.gm).json()["invite_code"]
    joined = api.post(
        f"/api/v1/sessions/{table.sid}/join", body={"invite_code": code, "name": "cara"}
    ).json()
    latest = api.get(f"/api/v1/sessions/{table.sid}/checkpoint", table.gm).json()
    assert joined["checkpoint"] == latest["checkpoint"]


def test_a_member_reads_the_checkpoint_and_a_stranger_does_not(api: Api, table: Table) -> None:
    path = f"/api/v1/sessions/{table.sid}/checkpoint"
    shown = api.get(path, table.ann).json()
    signed = open_signed_checkpoint(shown["checkpoint"], trusted(api))
    assert (shown["size"], shown["root"]) == (signed.checkpoint.size, signed.checkpoint.root.hex())
    assert shown["verifier_key"] in {str(k) for k in trusted(api)}
    assert api.get(path).status_code == 401
    other = api.post("/api/v1/sessions", body={"title": "Other", "name": "eve"}).json()
    assert api.get(path, other["gm_token"]).status_code == 404


def test_an_inclusion_proof_by_position_leads_to_the_signed_root(api: Api, table: Table) -> None:
    api.roll(table.sid, table.ann, ROLL)
    path = f"/api/v1/sessions/{table.sid}"
    root = head(api.get(f"{path}/checkpoint", table.ann).json()["checkpoint"]).root
    for line in api.get(f"{path}/replay", table.ann).json()["lines"]:
        shown = api.get(f"{path}/proof/inclusion", table.ann, position=line["position"]).json()
        proof = InclusionProof(
            shown["leaf_index"], shown["tree_size"], tuple(bytes.fromhex(h) for h in shown["proof"])
        )
        assert shown["stream_version"] == line["version"] == shown["leaf_index"] + 1
        verify_inclusion(bytes.fromhex(shown["leaf_hash"]), proof, root)
    missing = api.get(f"{path}/proof/inclusion", table.ann, position=10**6)
    assert missing.status_code == 404


def test_a_consistency_proof_joins_a_kept_checkpoint_to_the_latest(api: Api, table: Table) -> None:
    path = f"/api/v1/sessions/{table.sid}"
    kept = api.get(f"{path}/checkpoint", table.ann).json()["checkpoint"]
    api.roll(table.sid, table.ann, ROLL)
    api.roll(table.sid, table.bob, ROLL)
    old = head(kept)
    shown = api.get(f"{path}/proof/consistency", table.ann, **{"from": old.size}).json()
    later = head(shown["checkpoint"])
    assert (shown["from"], shown["to"]) == (old.size, later.size)
    proof = ConsistencyProof(old.size, later.size, tuple(bytes.fromhex(h) for h in shown["proof"]))
    check_extends(old, later, proof)
    beyond = api.get(f"{path}/proof/consistency", table.ann, **{"from": 1, "to": 10**6})
    assert beyond.status_code == 404


def test_a_receipt_checks_offline_and_a_hidden_blind_roll_has_one_for_the_gm_only(
    api: Api, table: Table
) -> None:
    api.roll(table.sid, table.ann, ROLL)
    api.roll(table.sid, table.gm, {**ROLL, "blind": True, "for": "orc"})
    path = f"/api/v1/sessions/{table.sid}/rolls"
    receipt = Receipt.parse(api.get(f"{path}/1/receipt", table.bob).text)
    verified = verify_receipt(receipt, trusted(api), ed25519_check)
    assert {record["data"].get("roll_id") for record in verified.records} >= {1}
    assert api.get(f"{path}/2/receipt", table.ann).status_code == 404
    assert api.get(f"{path}/2/receipt", table.gm).status_code == 200


def test_a_gm_may_not_salt_a_roll_over_http(api: Api, table: Table) -> None:
    refused = api.roll(table.sid, table.gm, {**ROLL, "salt": "grind"})
    assert refused.status_code == 422
    assert refused.json()["type"] == "/problems/roll-refused"
    assert api.roll(table.sid, table.ann, {**ROLL, "salt": "fresh"}).status_code == 201


def test_a_server_names_the_key_it_creates_after_itself(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICELEDGER_DB", sqlite_url)
    monkeypatch.setenv("DICELEDGER_SIGNING_KEY", str(tmp_path / "server.key"))
    monkeypatch.setenv("DICELEDGER_ORIGIN", "https://dice.example")
    app = create()
    with TestClient(app) as client:
        opened = client.post("/api/v1/sessions", json={"title": "Tomb", "name": "mira"}).json()
        (key,) = client.get("/api/v1/keys").json()["keys"]
    assert key["name"] == "dice.example/diceledger"
    assert head(opened["checkpoint"]).origin == f"dice.example/diceledger/{opened['session_id']}"
    app.state.services.app.close()


def test_a_rotated_key_stays_published_with_its_word_for_its_successor(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICELEDGER_SIGNING_KEY", str(tmp_path / "rotating.key"))
    api = build_api(sqlite_url)
    try:
        with api.client:
            open_table(api)
            (old,) = trusted(api)
            rotation = api.services.app.proofs.rotate_key()
            listed = api.get("/api/v1/keys").json()["keys"]
    finally:
        api.services.app.close()
        api.db.dispose()
    current = [key for key in listed if key["current"]]
    retired = [key for key in listed if not key["current"]]
    assert [key["verifier_key"] for key in retired] == [str(old)]
    new = VerifierKey.parse(current[0]["verifier_key"])
    assert retired[0]["successor"] == str(new) == str(rotation.successor)
    check_rotation(retired[0]["rotation"], old, new)  # signed by the old key, for the new
    with pytest.raises(VerificationError):
        check_rotation(retired[0]["rotation"], new, new)

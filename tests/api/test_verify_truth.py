"""The server's verify holds the log to the checkpoint it signed last, as the CLI does.

The one who tampers holds the database, not the signing key: a cut or an inserted event
leaves a log that agrees with itself, and only the signed checkpoint shows the change.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from diceledger.infra.ledger.schema import signed_checkpoints
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events
from tests.api.conftest import Api, Table
from tests.infra.forging import rechain
from tests.infra.owner_rights import Owner

ROLL = {"kind": "effect", "expression": "1d6", "faces": [4]}


@pytest.fixture
def owner(api: Api, table: Table) -> Iterator[Owner]:
    assert api.roll(table.sid, table.ann, ROLL).status_code == 201
    yield Owner(api.db, table.sid)


def verified(api: Api, table: Table) -> Any:
    answer = api.get(f"/api/v1/sessions/{table.sid}/verify", table.gm)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_an_honest_log_verifies_against_its_latest_checkpoint(
    api: Api, table: Table, owner: Owner
) -> None:
    shown = verified(api, table)
    assert shown["ok"] is True
    assert shown["anchor"] == "signed-checkpoint"
    # Held to the store's latest checkpoint and to the heads file beside the key.
    latest, remembered = shown["checkpoints"]["findings"]
    assert latest["ok"] is True and "heads exactly the log" in latest["detail"]
    assert remembered["ok"] is True and remembered["source"].startswith("the heads file ")


def test_a_cut_of_a_whole_signed_roll_is_not_ok(api: Api, table: Table, owner: Owner) -> None:
    size = owner.store.current_version(table.sid)
    records = list(owner.store.read_stream(table.sid))
    kept = next(r.stream_version for r in records if r.event_type == "RollRequested") - 1
    owner.drop_triggers()
    owner.delete_after(kept)  # the log agrees with itself: only the checkpoint knows
    shown = verified(api, table)
    assert shown["ok"] is False and shown["failures"] == []
    assert (
        f"the log has {kept} events; its checkpoint signs {size}"
        in (shown["first_failure"]["reason"])
    )


def test_a_forged_rules_valid_join_with_a_correct_chain_is_not_ok(
    api: Api, table: Table, owner: Owner
) -> None:
    owner.forge_insert(
        "PlayerJoined", name="eve", role="player", client_seed="eve's", added_by="eve"
    )
    shown = verified(api, table)
    assert shown["events"] == owner.store.current_version(table.sid)
    assert shown["ok"] is False
    assert "gained events since it was signed" in shown["first_failure"]["reason"]


def test_a_log_whose_checkpoints_were_deleted_is_not_ok(
    api: Api, table: Table, owner: Owner
) -> None:
    owner.drop_triggers()
    with api.db.begin() as connection:
        connection.execute(
            signed_checkpoints.delete().where(signed_checkpoints.c.stream_id == table.sid)
        )
    shown = verified(api, table)
    assert shown["ok"] is False
    assert "signs its logs, but no checkpoint heads these" in shown["first_failure"]["reason"]


def test_a_signed_event_rewritten_with_its_chain_recomputed_is_not_ok(
    api: Api, table: Table, owner: Owner
) -> None:
    records = list(owner.store.read_stream(table.sid))
    index = next(i for i, r in enumerate(records) if r.data.get("name") == "bob")
    renamed = {**records[index].data, "client_seed": "bob's seed, as the owner prefers"}
    records[index] = replace(records[index], data=renamed)
    forged = rechain(records, index)  # every hash from bob's join on, recomputed
    owner.drop_triggers()
    owner.delete_after(index)
    with api.db.begin() as connection:
        connection.execute(events.insert(), [to_row(r) for r in forged[index:]])
    shown = verified(api, table)
    assert shown["ok"] is False
    assert "the log was rewritten" in shown["first_failure"]["reason"]


def test_a_roll_cut_with_its_ledger_rows_is_not_ok_against_the_heads_file(
    api: Api, table: Table, owner: Owner
) -> None:
    # The whole cut: the roll, its Merkle nodes and its checkpoints. The database's ledger
    # then agrees with the shorter log; only the heads file beside the key remembers.
    size = owner.store.current_version(table.sid)
    records = list(owner.store.read_stream(table.sid))
    kept = next(r.stream_version for r in records if r.event_type == "RollRequested") - 1
    owner.drop_triggers()
    owner.rewind(kept)
    shown = verified(api, table)
    assert shown["ok"] is False and shown["verdict"] == "failed"
    failed = [f for f in shown["checkpoints"]["findings"] if not f["ok"]]
    assert [f["source"].split(" ")[:3] for f in failed] == [["the", "heads", "file"]]
    assert f"{size}" in failed[0]["detail"] and "events were removed" in failed[0]["detail"]
    assert shown["first_failure"]["reason"].endswith(str(failed[0]["detail"]))

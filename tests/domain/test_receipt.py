"""Receipts: a roll's events and proofs check offline, and any change to them is caught."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from diceledger.domain.checkpoint import Checkpoint, SignedCheckpoint, origin_for
from diceledger.domain.errors import MalformedError, ProofError, SignatureError
from diceledger.domain.hashchain import GENESIS_HASH, canonical_json, chain_record, record_hash
from diceledger.domain.merkle import MerkleTree, leaf_hash
from diceledger.domain.receipt import (
    Receipt,
    ReceiptEntry,
    build_receipt,
    parse_tlog_proof,
    verify_receipt,
)
from diceledger.domain.records import RecordedEvent
from tests.domain.test_signed_note import SERVER, key, signed_by, stand_in_check

SESSION = "crypt-1a2b3c"


def session_log(n: int, session: str = SESSION) -> list[RecordedEvent]:
    records: list[RecordedEvent] = []
    prev = GENESIS_HASH
    for version in range(1, n + 1):
        record = RecordedEvent(
            position=version,
            event_id=f"3f1c2b9e-0000-4000-8000-{version:012d}",
            stream_id=session,
            stream_version=version,
            event_type="DiceRolled",
            schema_version=1,
            data={"face": version % 20 + 1, "size": 20},
            meta={"actor": "ann"},
            recorded_at=datetime(2026, 11, 29, 20, 0, tzinfo=UTC) + timedelta(seconds=version),
            prev_hash=prev,
            hash="",
        )
        record = replace(record, hash=record_hash(record))
        records.append(record)
        prev = record.hash
    return records


def signed_tree(records: list[RecordedEvent]) -> tuple[MerkleTree, SignedCheckpoint]:
    tree = MerkleTree([bytes.fromhex(record.hash) for record in records])
    checkpoint = Checkpoint(origin_for(SERVER, records[0].stream_id), tree.size, tree.root())
    return tree, SignedCheckpoint(checkpoint, signed_by(key(), checkpoint.text()), SERVER)


def receipt_for(versions: list[int], n: int = 11) -> Receipt:
    records = session_log(n)
    tree, signed = signed_tree(records)
    chosen = [records[v - 1] for v in versions]
    return build_receipt(signed, [(r, tree.inclusion(r.stream_version - 1)) for r in chosen])


def test_an_events_leaf_is_its_chain_hash() -> None:
    record = session_log(1)[0]
    assert leaf_hash(canonical_json(chain_record(record))).hex() == record.hash


def test_a_receipt_checks_offline_and_names_its_events() -> None:
    receipt = receipt_for([5, 6, 7])
    verified = verify_receipt(Receipt.parse(receipt.to_json()), [key()], stand_in_check)
    assert [r["stream_version"] for r in verified.records] == [5, 6, 7]
    assert verified.checkpoint.session_id == SESSION
    assert verified.checkpoint.checkpoint.size == 11


def test_a_receipt_reads_back_to_itself() -> None:
    receipt = receipt_for([1, 11])
    assert Receipt.parse(receipt.to_json()) == receipt
    document = json.loads(receipt.to_json())
    assert document["format"] == "diceledger/receipt/v1"
    assert [event["index"] for event in document["events"]] == [0, 10]


def edited(receipt: Receipt, **changes: object) -> Receipt:
    entry = receipt.entries[0]
    assert entry.record is not None  # the first entry is a whole event, never sealed
    record = dict(entry.record) | changes
    return replace(receipt, entries=(ReceiptEntry(record, entry.proof), *receipt.entries[1:]))


def test_a_changed_face_in_a_receipt_is_caught() -> None:
    receipt = edited(receipt_for([5]), data={"face": 20, "size": 20})
    with pytest.raises(ProofError, match="version 5.*is not in the signed log"):
        verify_receipt(receipt, [key()], stand_in_check)


def test_a_receipt_event_moved_to_another_place_is_caught() -> None:
    receipt = edited(receipt_for([5]), stream_version=6)
    with pytest.raises(ProofError, match="placed at leaf 4, not 5"):
        verify_receipt(receipt, [key()], stand_in_check)


def test_a_receipt_for_another_session_is_caught() -> None:
    receipt = edited(receipt_for([5]), stream_id="other-9")
    with pytest.raises(ProofError, match="another session"):
        verify_receipt(receipt, [key()], stand_in_check)


def test_a_receipt_signed_by_another_key_is_refused() -> None:
    with pytest.raises(SignatureError):
        verify_receipt(receipt_for([5]), [key(seed=b"another server")], stand_in_check)


def test_a_receipt_whose_checkpoint_was_swapped_for_a_later_one_is_caught() -> None:
    receipt = receipt_for([5], n=11)
    _, later = signed_tree(session_log(12))
    with pytest.raises(ProofError):
        verify_receipt(replace(receipt, checkpoint=str(later)), [key()], stand_in_check)


@pytest.mark.parametrize(
    "document",
    [
        "not json",
        "{}",
        '{"format": "other/v1", "checkpoint": "", "events": []}',
        '{"format": "diceledger/receipt/v1", "checkpoint": "x\\n\\n", "events": []}',
    ],
)
def test_a_malformed_receipt_is_refused(document: str) -> None:
    with pytest.raises(MalformedError):
        Receipt.parse(document)


def test_each_receipt_event_is_also_a_c2sp_tlog_proof() -> None:
    receipt = receipt_for([3, 4])
    text = receipt.tlog_proof(1)
    lines = text.split("\n")
    assert lines[0] == "c2sp.org/tlog-proof@v1"
    assert lines[1].startswith("extra ") and lines[2] == "index 3"
    assert text.endswith(receipt.checkpoint)
    entry, checkpoint = parse_tlog_proof(text)
    assert entry == receipt.entries[1] and checkpoint == receipt.checkpoint
    verify_receipt(Receipt(checkpoint, (entry,)), [key()], stand_in_check)

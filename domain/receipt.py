"""Receipts: a roll's events, their inclusion proofs and a signed checkpoint, checked offline.

A receipt is one JSON object:

    {"format": "diceledger/receipt/v1",
     "checkpoint": "<the signed checkpoint note, verbatim>",
     "verifier_key": "<name>+<key id>+<base64 key>",     optional: the signer's key
     "events": [{"index": <leaf index>, "record": {<the object the event's hash covers>},
                 "proof": ["<base64 hash>", ...]}, ...]}

An event's leaf is SHA-256(0x00 || canonical_json(record)), which is its chain hash;
``index`` is its stream version minus one; ``proof`` runs from the leaf's sibling up to a
child of the root (RFC 9162). Each event can also be written on its own in the C2SP
tlog-proof format, whose ``extra`` line then carries the record's canonical JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diceledger.domain.checkpoint import Checkpoint, SignedCheckpoint, open_checkpoint
from diceledger.domain.errors import InvalidInputError, MalformedError, ProofError
from diceledger.domain.hashchain import canonical_json, chain_record
from diceledger.domain.merkle import InclusionProof, leaf_hash, verify_inclusion
from diceledger.domain.records import RecordedEvent
from diceledger.domain.signed_note import (
    SignatureCheck,
    SignedNote,
    VerifierKey,
    decode_base64,
    encode_base64,
)

RECEIPT_FORMAT = "diceledger/receipt/v1"
TLOG_PROOF_HEADER = "c2sp.org/tlog-proof@v1"
RECORD_KEYS = frozenset(
    {
        "event_id",
        "stream_id",
        "stream_version",
        "event_type",
        "schema_version",
        "data",
        "meta",
        "recorded_at",
        "prev_hash",
    }
)


@dataclass(frozen=True, slots=True)
class ReceiptEntry:
    """One event of a receipt: the object its hash covers and its inclusion proof.

    A sealed entry (an event of a hidden blind roll inside the roll's range, in a
    player's receipt) has no record, only its leaf: ``sealed``.
    """

    record: Mapping[str, Any] | None
    proof: InclusionProof
    sealed: bytes | None = None

    @property
    def version(self) -> int:
        """Return the event's stream version (its leaf index plus one)."""
        return self.proof.index + 1

    def leaf(self) -> bytes:
        """Return the event's leaf hash (its chain hash, as bytes)."""
        if self.record is None:
            assert self.sealed is not None
            return self.sealed
        try:
            return leaf_hash(canonical_json(self.record))
        except InvalidInputError as error:
            raise MalformedError(f"a receipt's event is not canonical JSON: {error}") from None


@dataclass(frozen=True, slots=True)
class Receipt:
    """A self-contained proof that some events are in a session's signed log."""

    checkpoint: str  # the signed note, verbatim
    entries: tuple[ReceiptEntry, ...]
    verifier_key: str | None = None  # the signer's key, for a reader who has none yet

    def to_json(self) -> str:
        """Return the receipt as one JSON document."""
        events = [
            {
                "index": entry.proof.index,
                **(
                    {"sealed": encode_base64(entry.leaf())}
                    if entry.record is None
                    else {"record": dict(entry.record)}
                ),
                "proof": [encode_base64(value) for value in entry.proof.hashes],
            }
            for entry in self.entries
        ]
        document: dict[str, Any] = {"format": RECEIPT_FORMAT, "checkpoint": self.checkpoint}
        if self.verifier_key is not None:
            document["verifier_key"] = self.verifier_key
        document["events"] = events
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def parse(cls, text: str) -> Receipt:
        """Read a receipt document; refuse one that breaks the format."""
        try:
            document = json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            raise MalformedError("a receipt must be one JSON document") from None
        if not isinstance(document, dict) or set(document) - {"verifier_key"} != {
            "format",
            "checkpoint",
            "events",
        }:
            raise MalformedError(
                "a receipt holds exactly: format, checkpoint, events (and a verifier_key)"
            )
        if document["format"] != RECEIPT_FORMAT:
            raise MalformedError(f"not a receipt of format {RECEIPT_FORMAT}")
        checkpoint, events = document["checkpoint"], document["events"]
        if not isinstance(checkpoint, str) or not isinstance(events, list) or not events:
            raise MalformedError("a receipt needs a signed checkpoint and at least one event")
        key = document.get("verifier_key")
        if key is not None:
            if not isinstance(key, str):
                raise MalformedError("a receipt's verifier_key is a string")
            VerifierKey.parse(key)
        size = _checkpoint_size(checkpoint)
        return cls(checkpoint, tuple(_parse_entry(event, size) for event in events), key)

    def key(self) -> VerifierKey | None:
        """Return the verifier key the receipt names, if it names one."""
        return None if self.verifier_key is None else VerifierKey.parse(self.verifier_key)

    def tlog_proof(self, position: int) -> str:
        """Return the entry at ``position`` as a C2SP tlog-proof (record in its extra line)."""
        entry = self.entries[position]
        if entry.record is None:
            raise ValueError("a sealed entry has no record to write as a tlog-proof")
        lines = [
            TLOG_PROOF_HEADER,
            f"extra {encode_base64(canonical_json(entry.record))}",
            f"index {entry.proof.index}",
            *(encode_base64(value) for value in entry.proof.hashes),
        ]
        return "\n".join(lines) + "\n\n" + self.checkpoint


@dataclass(frozen=True, slots=True)
class VerifiedReceipt:
    """What a receipt proves: these events are in the log the checkpoint heads.

    ``sealed`` holds the versions of the sealed entries: in the log, content not shown.
    """

    checkpoint: SignedCheckpoint
    records: tuple[Mapping[str, Any], ...]
    sealed: tuple[int, ...] = ()


def build_receipt(
    signed: SignedCheckpoint,
    events: Sequence[tuple[RecordedEvent, InclusionProof]],
    verifier_key: VerifierKey | None = None,
    sealed: frozenset[int] = frozenset(),
) -> Receipt:
    """Return the receipt of recorded events with their proofs against ``signed``.

    Events of the rolls in ``sealed`` (hidden from the receipt's reader) are sealed entries.
    """
    entries = []
    for record, proof in events:
        if proof.size != signed.checkpoint.size or proof.index != record.stream_version - 1:
            raise ValueError(f"the proof of version {record.stream_version} is for another tree")
        if record.data.get("roll_id") in sealed:
            entries.append(ReceiptEntry(None, proof, bytes.fromhex(record.hash)))
        else:
            entries.append(ReceiptEntry(chain_record(record), proof))
    key = None if verifier_key is None else str(verifier_key)
    return Receipt(str(signed), tuple(entries), key)


def verify_receipt(
    receipt: Receipt, trusted: Iterable[VerifierKey], check: SignatureCheck
) -> VerifiedReceipt:
    """Check a receipt offline: a trusted signature, and every event in the signed tree."""
    signed = open_checkpoint(receipt.checkpoint, trusted, check)
    for entry in receipt.entries:
        _check_entry(entry, signed)
    records = tuple(entry.record for entry in receipt.entries if entry.record is not None)
    sealed = tuple(entry.version for entry in receipt.entries if entry.record is None)
    return VerifiedReceipt(signed, records, sealed)


def parse_tlog_proof(text: str) -> tuple[ReceiptEntry, str]:
    """Read a C2SP tlog-proof written by ``Receipt.tlog_proof``: its entry and checkpoint."""
    head, separator, checkpoint = text.partition("\n\n")
    lines = head.split("\n")
    if not separator or len(lines) < 3 or lines[0] != TLOG_PROOF_HEADER:
        raise MalformedError(f"a tlog-proof starts with {TLOG_PROOF_HEADER} and ends in a note")
    extra, index = lines[1], lines[2]
    if not extra.startswith("extra ") or not index.startswith("index "):
        raise MalformedError("a receipt's tlog-proof needs its extra and index lines")
    try:
        record = json.loads(decode_base64(extra[len("extra ") :], "extra data"))
    except (ValueError, RecursionError):
        raise MalformedError("the tlog-proof's extra data is not a JSON record") from None
    number = _decimal(index[len("index ") :], "index")
    hashes = tuple(decode_base64(line, "proof hash") for line in lines[3:])
    size = _checkpoint_size(checkpoint)
    return ReceiptEntry(_record(record), InclusionProof(number, size, hashes)), checkpoint


def _check_entry(entry: ReceiptEntry, signed: SignedCheckpoint) -> None:
    if entry.record is None:
        try:
            verify_inclusion(entry.leaf(), entry.proof, signed.checkpoint.root)
        except ProofError as error:
            raise ProofError(
                f"the sealed event at version {entry.version} is not in the signed log: {error}"
            ) from None
        return
    version = entry.record["stream_version"]
    where = f"event {entry.record['event_id']} (version {version})"
    if entry.record["stream_id"] != signed.session_id:
        raise ProofError(f"{where} belongs to another session than the checkpoint's")
    if entry.proof.index != version - 1:
        raise ProofError(f"{where} is placed at leaf {entry.proof.index}, not {version - 1}")
    try:
        verify_inclusion(entry.leaf(), entry.proof, signed.checkpoint.root)
    except ProofError as error:
        raise ProofError(f"{where} is not in the signed log: {error}") from None


def _parse_entry(event: object, size: int) -> ReceiptEntry:
    if not isinstance(event, dict) or set(event) not in (
        {"index", "record", "proof"},
        {"index", "sealed", "proof"},
    ):
        raise MalformedError("a receipt's event holds exactly: index, record (or sealed), proof")
    proof = event["proof"]
    if not isinstance(proof, list) or not all(isinstance(value, str) for value in proof):
        raise MalformedError("a receipt's proof is a list of base64 hashes")
    index = event["index"]
    if type(index) is not int or index < 0:
        raise MalformedError("a receipt's event index is a non-negative integer")
    hashes = tuple(decode_base64(value, "proof hash") for value in proof)
    if "sealed" in event:
        sealed = event["sealed"]
        leaf = decode_base64(sealed, "sealed leaf") if isinstance(sealed, str) else b""
        if len(leaf) != 32:
            raise MalformedError("a receipt's sealed event is the base64 of its 32-byte hash")
        return ReceiptEntry(None, InclusionProof(index, size, hashes), leaf)
    return ReceiptEntry(_record(event["record"]), InclusionProof(index, size, hashes))


def _record(value: object) -> Mapping[str, Any]:
    if not isinstance(value, dict) or set(value) != RECORD_KEYS:
        raise MalformedError(f"a receipt's record holds exactly: {', '.join(sorted(RECORD_KEYS))}")
    if type(value["stream_version"]) is not int or not isinstance(value["stream_id"], str):
        raise MalformedError("a receipt's record needs a stream id and an integer version")
    return value


def _checkpoint_size(note: str) -> int:
    return Checkpoint.parse(SignedNote.parse(note).text).size


def _decimal(text: str, what: str) -> int:
    if not text.isascii() or not text.isdigit() or (text != "0" and text.startswith("0")):
        raise MalformedError(f"the {what} must be a plain decimal: {text!r}")
    return int(text)


def check_complete(verified: VerifiedReceipt) -> int:
    """Check that a receipt holds every event of its roll; return the roll's id.

    The roll is the one of the receipt's first request. From that request to the roll's
    last event the receipt holds every version (an event of a roll hidden from its reader
    as a sealed entry), then the event right after it, unless the roll's last event is the
    checkpoint's last: an event of the roll dropped anywhere in between leaves a gap, one
    dropped at the end leaves the roll's own event where the next must be another's. For
    each epoch its dice were drawn from it holds the commitment.
    """
    records = {int(record["stream_version"]): record for record in verified.records}
    requests = sorted(
        version for version, record in records.items() if record["event_type"] == "RollRequested"
    )
    if not requests:
        raise ProofError("the receipt holds no roll request")
    first = requests[0]
    roll_id = records[first]["data"].get("roll_id")
    earlier = [v for v, r in records.items() if v < first and r["data"].get("roll_id") is not None]
    if earlier:
        stray = records[earlier[0]]["data"]["roll_id"]
        raise ProofError(f"the receipt holds events of roll {stray} but not its request")
    own = [v for v, record in records.items() if record["data"].get("roll_id") == roll_id]
    last = max(own)
    held = set(records) | set(verified.sealed)
    size = verified.checkpoint.checkpoint.size
    for version in range(first, min(last + 1, size) + 1):
        if version not in held:
            where = f"between its request (version {first}) and its last event ({last})"
            if version > last:
                where = f"the event after its last one (version {last})"
            raise ProofError(f"roll {roll_id}: the receipt lacks version {version}, {where}")
    committed = {
        int(record["data"]["epoch"])
        for record in records.values()
        if record["event_type"] == "SeedCommitted"
    }
    for epoch in sorted(roll_epochs((records[v]["event_type"], records[v]["data"]) for v in own)):
        if epoch not in committed:
            raise ProofError(f"roll {roll_id}: the receipt lacks the commitment of epoch {epoch}")
    return int(roll_id)


def roll_epochs(events: Iterable[tuple[str, Mapping[str, Any]]]) -> set[int]:
    """Return the seed epochs a roll's events (type, data) name: its request's, its dice's."""
    epochs: set[int] = set()
    for kind, data in events:
        if kind == "RollRequested":
            epochs.add(int(data["epoch"]))
        dice = data.get("dice", [data["die"]] if "die" in data else [])
        epochs.update(int(die["epoch"]) for die in dice if die.get("epoch") is not None)
    return epochs

"""Verification and dispute review as services: read the records, run the pure checks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from diceledger.domain.audit import Claim, LogAudit, audit_log
from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.errors import (
    MalformedError,
    NotFoundError,
    PermissionDeniedError,
    unknown_session,
)
from diceledger.domain.export_proof import ExportProof
from diceledger.domain.json import JsonObject
from diceledger.domain.receipt import Receipt, VerifiedReceipt, verify_receipt
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session.state import replay
from diceledger.domain.signed_note import SignedNote, VerifierKey
from diceledger.domain.trust import resolve_trust
from diceledger.domain.verification.receipt_dice import ReceiptDice, check_receipt_dice
from diceledger.domain.verification.report import Report
from diceledger.domain.verification.review import review
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.codec import decode, from_record
from diceledger.infra.exporting import read_export
from diceledger.infra.signing import ed25519_check
from diceledger.infra.store.port import EventStore

Wrap = Callable[[Iterable[RecordedEvent]], Iterable[RecordedEvent]]


def _as_is(records: Iterable[RecordedEvent]) -> Iterable[RecordedEvent]:
    return records


def verify_session(store: EventStore, session_id: str, wrap: Wrap = _as_is) -> Report:
    """Verify a stored session; ``wrap`` may watch the records go by (a progress bar)."""
    report = verify_records(wrap(store.read_stream(session_id)), from_record)
    if report.events == 0:
        raise unknown_session(session_id)
    return report


def verify_file(path: str | Path, wrap: Wrap = _as_is) -> Report:
    """Verify an exported session (JSON Lines) with no database."""
    return verify_records(wrap(read_export(path)), from_record)


def audit_file(
    path: str | Path,
    session_id: str,
    proof: ExportProof | None,
    kept: Sequence[Claim],
    known: Sequence[VerifierKey],
) -> LogAudit:
    """Check an export's events against its proof's checkpoint and the ``kept`` ones.

    ``known`` are the keys the reader trusts; the keys the proof carries are used only
    for a server none of them names (``domain.trust``).
    """
    # The report of the log itself names a broken chain; here every line is a leaf as is.
    leaves = [_leaf(r.hash) for r in read_export(path) if r.stream_id == session_id]
    head = None
    if proof is not None:
        mine = [note for note in proof.checkpoints if _heads_session(note, session_id)]
        head = Claim("the export's proof", mine[0]) if mine else None
    trust = resolve_trust(known, () if proof is None else proof.keys())
    return audit_log(session_id, leaves, head, kept, trust, ed25519_check)


@dataclass(frozen=True, slots=True)
class ReceiptCheck:
    """A receipt that holds, whether a key the reader pinned signed it, and its dice."""

    verified: VerifiedReceipt
    pinned: bool
    dice: ReceiptDice


def check_receipt(receipt: Receipt, known: Sequence[VerifierKey]) -> ReceiptCheck:
    """Check a receipt offline against the reader's keys (or, failing those, its own).

    Every event must be in the signed log; then its dice are derived again from the seed
    it holds, once revealed (``domain.verification.receipt_dice``).
    """
    carried = receipt.key()
    trust = resolve_trust(known, () if carried is None else (carried,))
    verified = verify_receipt(receipt, trust.keys, ed25519_check)
    dice = check_receipt_dice(
        verified.records,
        lambda r: decode(str(r["event_type"]), int(r["schema_version"]), dict(r["data"])),
    )
    return ReceiptCheck(verified, trust.pinned_signer(verified.checkpoint), dice)


def _leaf(hash_hex: str) -> bytes:
    """Return an event's hash as a leaf; a hash that is not hex is no leaf (fails the tree)."""
    try:
        return bytes.fromhex(hash_hex)
    except ValueError:
        return b""


def _heads_session(note: str, session_id: str) -> bool:
    try:
        origin = Checkpoint.parse(SignedNote.parse(note).text).origin
    except MalformedError:
        return False
    return origin.endswith(f"/{session_id}")


def review_roll(store: EventStore, session_id: str, roll_id: int, actor: str) -> JsonObject:
    """Return the GM's review of one roll: dice, provenance, steps and proofs."""
    records = list(store.read_stream(session_id))
    report = verify_records(records, from_record)
    if report.events == 0:
        raise unknown_session(session_id)
    state = replay((r.stream_version, from_record(r)) for r in records)
    if not state.is_gm(actor):
        raise PermissionDeniedError("only a GM may review a roll")
    roll = state.rolls.get(roll_id)
    if roll is None:
        raise NotFoundError(f"no roll {roll_id} in session '{session_id}'")
    refs = [
        (r.position, r.stream_version, r.event_type, r.hash)
        for r in records
        if r.data.get("roll_id") == roll_id
    ]
    return review(state, roll, refs, report.as_dict())

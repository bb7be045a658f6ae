"""The verify use cases: a stored session, an export, a receipt, each held to what anchors it.

A log alone proves only that it agrees with itself and with the rules (``verify_log``,
``verify_file``). What anchors it is a checkpoint signed by a key the reader trusts: for a
stored session, the store's latest checkpoint (and each head an anchor outside the
database remembers); for an export, its proof; for both, the checkpoints the reader kept.
Every face calls these and renders the verdict; none builds trust sets or matches origins
itself (``session_of``).

The verdict's standing is what ``verify`` exits with: proven (0), failed (1), or
consistent but unanchored (3), when the only keys that signed are those the document
itself carries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from diceledger.domain.audit import Claim, Finding, LogAudit, audit_log, remembered
from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.errors import VerificationError, unknown_session
from diceledger.domain.receipt import Receipt, VerifiedReceipt, check_complete, verify_receipt
from diceledger.domain.records import ExportedEvent, RecordedEvent
from diceledger.domain.signed_note import SignedNote, VerifierKey
from diceledger.domain.trust import Retired, resolve_trust
from diceledger.domain.verification.receipt_dice import ReceiptDice, check_receipt_dice
from diceledger.domain.verification.report import Report
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.app.export_verdict import (
    Standing,
    Verdict,
    anchor_of,
    judge_export,
    leaf_of,
    origin_of,
)
from diceledger.infra.app.proofs import Proofs
from diceledger.infra.codec.events import decode, from_record
from diceledger.infra.ledger.keeper import CheckpointKeeper
from diceledger.infra.ledger.signed_exports import proof_path, read_proof
from diceledger.infra.ledger.signed_heads import Head
from diceledger.infra.ledger.signing import ed25519_check, open_keyring
from diceledger.infra.store.exporting import read_lines
from diceledger.infra.store.port import EventStore

LATEST = "the store's latest checkpoint"
Line = TypeVar("Line", RecordedEvent, ExportedEvent)


class Watch(Protocol):
    """Watches a read go by: receives the records and how many there are, yields them on."""

    def __call__(self, records: Iterable[Line], count: int, /) -> Iterable[Line]:
        """Yield the records on (a progress bar may count them)."""
        ...


def _unwatched(records: Iterable[Line], _count: int) -> Iterable[Line]:
    return records


class HeadAnchor(Protocol):
    """A memory of each session's latest signed tree kept apart from the database.

    A stored session's verify compares the log with every anchor's head as with a kept
    checkpoint: a log cut below it, rewritten under it, or forked from it fails.
    """

    @property
    def source(self) -> str:
        """Name the anchor in a finding (a file's path, a witness's address)."""
        ...

    def latest(self, stream_id: str) -> Head | None:
        """Return the latest tree it remembers for the session (None: none)."""
        ...


@dataclass(frozen=True, slots=True)
class ReceiptCheck:
    """A receipt that holds, whether a key the reader trusts signed it, and its dice."""

    verified: VerifiedReceipt
    pinned: bool
    dice: ReceiptDice
    roll_id: int  # the roll it proves whole: the one of its first request

    @property
    def standing(self) -> Standing:
        """Return proven, or unanchored when only the receipt's own key signed it."""
        return Standing.PROVEN if self.pinned else Standing.UNANCHORED


@dataclass(frozen=True, slots=True)
class Reader:
    """What a reader brings to a verify: keys given, checkpoints named, the ones kept here.

    ``keeper`` is the folder this machine keeps checkpoints in (the CLI's); its pinned
    keys are trusted, and its checkpoints of the log a verify heads are checked too.
    """

    given: tuple[VerifierKey, ...] = ()
    kept: tuple[Claim, ...] = ()
    keeper: CheckpointKeeper | None = None

    def pinned(self) -> tuple[VerifierKey, ...]:
        """Return the keys this machine pinned when it first kept their checkpoints."""
        return () if self.keeper is None else self.keeper.pinned()

    def claims(self, session_id: str, head: str | None) -> tuple[Claim, ...]:
        """Return the named checkpoints and those kept here of the log ``head`` heads."""
        origin = None if head is None else origin_of(head)
        if origin is None or self.keeper is None:
            return self.kept
        here = [
            Claim(f"kept by this machine ({path})", note)
            for path, note in self.keeper.kept(session_id)
            if origin_of(note) == origin
        ]
        return (*self.kept, *here)

    def offline(self) -> tuple[tuple[VerifierKey, ...], tuple[Retired, ...]]:
        """Return the keys a reader with no database trusts (given, its own store's,
        pinned), and what each retired key of its own store may still vouch for."""
        keyring = open_keyring()
        return (*self.given, *keyring.known(), *self.pinned()), keyring.retirements()


# What a caller may put around the read of a log alone (a progress bar).
Wrap = Callable[[Iterable[RecordedEvent]], Iterable[RecordedEvent]]


def _as_is(records: Iterable[RecordedEvent]) -> Iterable[RecordedEvent]:
    return records


def verify_log(store: EventStore, session_id: str, wrap: Wrap = _as_is) -> Report:
    """Verify a stored session's log alone; ``wrap`` may watch the records go by."""
    report = verify_records(wrap(store.read_stream(session_id)), from_record)
    if report.events == 0:
        raise unknown_session(session_id)
    return report


def verify_file(
    path: str | Path,
    wrap: Callable[[Iterable[ExportedEvent]], Iterable[ExportedEvent]] = lambda lines: lines,
) -> Report:
    """Verify an exported session (JSON Lines) with no database; sealed lines are links."""
    return verify_records(wrap(read_lines(path)), from_record)


def verify_session(
    store: EventStore,
    proofs: Proofs,
    anchors: Sequence[HeadAnchor],
    session_id: str,
    reader: Reader = Reader(),
    watch: Watch = _unwatched,
) -> Verdict:
    """Verify a stored session and hold it to its signed checkpoints and ``anchors``.

    The store's latest checkpoint is read before the log: events a concurrent command
    appended after it must then be headed exactly by the checkpoint of the log's size.
    """
    unreadable: Finding | None = None
    try:
        head_note = proofs.latest(session_id)
    except VerificationError as error:  # a stored note whose signature fails
        head_note, unreadable = None, Finding(LATEST, False, f"signature: {error}")
    leaves: list[bytes] = []
    count = store.current_version(session_id)
    report = verify_log(
        store, session_id, lambda records: _leaves_of(watch(records, count), leaves)
    )
    findings = [] if unreadable is None else [unreadable]
    head = None
    if head_note is not None:
        if len(leaves) > _size(head_note):
            head_note = proofs.signed_at(session_id, len(leaves)) or head_note
        head = Claim(LATEST, head_note)
    elif proofs.signing and unreadable is None:
        detail = (
            f"none: this store signs its logs, but no checkpoint heads these {len(leaves)} events"
        )
        findings.append(Finding(LATEST, False, detail))
    keys = (*proofs.trusted(), *reader.given, *reader.pinned())
    trust = resolve_trust(keys, (), proofs.retired())
    kept = reader.claims(session_id, head_note)
    audit = audit_log(session_id, leaves, head, kept, trust, ed25519_check)
    for anchor in anchors:
        remembered_head = anchor.latest(session_id)
        if remembered_head is not None:
            size, root = remembered_head.size, remembered_head.root
            findings.append(remembered(anchor.source, leaves, size, root))
    audit = LogAudit(session_id, audit.events, (*audit.findings, *findings), audit.kept)
    report.anchor = anchor_of(audit, head is not None)
    return Verdict(report, audit)


def verify_export(
    path: str | Path,
    proof_file: str | Path | None = None,
    reader: Reader = Reader(),
    watch: Watch = _unwatched,
) -> Verdict:
    """Verify an exported session (JSON Lines) with no database, and hold it to its proof.

    The proof is ``proof_file``, else ``EXPORT.proof.json`` beside it, if there is one. The
    verdict is ``judge_export``'s, the verify page's too; this adds only the reader's files
    and this machine's keys.
    """
    proof = read_proof(proof_file or proof_path(path))
    with open(path, "rb") as handle:
        count = sum(1 for _ in handle)
    known, retired = reader.offline()
    return judge_export(
        lambda: read_lines(path),
        proof,
        reader.claims,
        known,
        retired,
        ed25519_check,
        lambda lines: watch(lines, count),
    )


def check_receipt(receipt: Receipt, reader: Reader = Reader()) -> ReceiptCheck:
    """Check a receipt offline against the reader's keys (or, failing those, its own).

    A key the reader's store retired vouches only for each session's size when it did.

    Every event must be in the signed log; then its dice are derived again from the seed
    it holds, once revealed (``domain.verification.receipt_dice``).
    """
    carried = receipt.key()
    known, retired = reader.offline()
    trust = resolve_trust(known, () if carried is None else (carried,), retired)
    verified = verify_receipt(receipt, trust.keys, ed25519_check)
    trust.check(verified.checkpoint)
    dice = check_receipt_dice(
        verified.records,
        lambda r: decode(str(r["event_type"]), int(r["schema_version"]), dict(r["data"])),
    )
    roll_id = check_complete(verified)
    return ReceiptCheck(verified, trust.pinned_signer(verified.checkpoint), dice, roll_id)


def _leaves_of(records: Iterable[RecordedEvent], leaves: list[bytes]) -> Iterator[RecordedEvent]:
    """Yield the records on, keeping each one's hash as a leaf of the session's tree."""
    for record in records:
        leaves.append(leaf_of(record.hash))
        yield record


def _size(note: str) -> int:
    return Checkpoint.parse(SignedNote.parse(note).text).size

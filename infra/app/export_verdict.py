"""An export's verdict from what the reader hands over: no database, no key files, no disk.

``verification.verify_export`` (``diceledger verify --file``) gathers the reader's proof,
kept checkpoints and this machine's keys, then calls ``judge_export``; the verify page
runs this same module under Pyodide with the bytes it was given, the checkpoint and key
the browser kept, and the signatures WebCrypto checked (``web.in_browser``). One code
reaches one verdict on both, so the two can never disagree about a log.

The module imports only the domain and the event codec (msgspec), both of which run in a
browser; Ed25519 arrives as a ``SignatureCheck``.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from diceledger.domain.audit import Claim, Finding, LogAudit, audit_log
from diceledger.domain.checkpoint import Checkpoint, read_kept, session_of
from diceledger.domain.errors import MalformedError
from diceledger.domain.export_proof import ExportProof
from diceledger.domain.json import JsonObject
from diceledger.domain.receipt import Receipt
from diceledger.domain.records import ExportedEvent
from diceledger.domain.signed_note import SignatureCheck, SignedNote, VerifierKey
from diceledger.domain.trust import Retired, resolve_trust
from diceledger.domain.verification.report import Anchor, Report
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.codec.events import from_record
from diceledger.infra.store.exporting import read_stream

CHECKED = {
    Anchor.LOG_ALONE: "the log alone",
    Anchor.SIGNED_CHECKPOINT: "the log and its signed checkpoint",
    Anchor.KEPT_CHECKPOINT: "the log and kept checkpoints",
}
EXPORT_PROOF = "the export's proof"

# Reads the export from its start, each time it is called (the verdict reads it twice).
Lines = Callable[[], Iterable[ExportedEvent]]
# The checkpoints the reader kept of a session, given the note that heads it (None: none).
KeptFor = Callable[[str, str | None], tuple[Claim, ...]]
# What a caller may put around the reading that verifies (a progress bar).
Watched = Callable[[Iterable[ExportedEvent]], Iterable[ExportedEvent]]


def _unwatched(lines: Iterable[ExportedEvent]) -> Iterable[ExportedEvent]:
    return lines


class Standing(IntEnum):
    """What a verification proved, as ``verify`` exits with it."""

    PROVEN = 0  # every claim holds against a trusted key (or the log alone, all that was asked)
    FAILED = 1  # a check or a checkpoint failed
    UNANCHORED = 3  # consistent, but only keys the document itself carries signed it


@dataclass(frozen=True, slots=True)
class Verdict:
    """A log's own report and what its checkpoints say of it."""

    report: Report
    audit: LogAudit

    @property
    def ok(self) -> bool:
        """Tell whether every check of the log and every checkpoint holds."""
        return self.report.ok and self.audit.ok

    @property
    def standing(self) -> Standing:
        """Return proven, failed, or unanchored (only the document's own keys signed)."""
        if not self.ok:
            return Standing.FAILED
        return Standing.PROVEN if self.audit.anchored else Standing.UNANCHORED

    def as_dict(self) -> JsonObject:
        """Return the report, its checkpoints' findings and the verdict as JSON-ready data."""
        shown = self.report.as_dict()
        finding = self.audit.first_failure
        if shown["first_failure"] is None and finding is not None:
            reason = str(finding)
            shown["first_failure"] = {"position": None, "stream_version": None, "reason": reason}
        return {
            **shown,
            "ok": self.ok,
            "verdict": self.standing.name.lower(),
            "checkpoints": {
                "checked": CHECKED[self.report.anchor],
                "ok": self.audit.ok,
                "kept": self.audit.kept,
                "findings": [
                    {"source": f.source, "ok": f.ok, "detail": f.detail}
                    for f in self.audit.findings
                ],
            },
        }


def judge_export(
    lines: Lines,
    proof: ExportProof | None,
    kept_for: KeptFor,
    known: Iterable[VerifierKey],
    retired: Iterable[Retired],
    check: SignatureCheck,
    watch: Watched = _unwatched,
) -> Verdict:
    """Verify an export's lines and hold its session to the proof and the kept checkpoints.

    A key the proof carries is used only for a server none of ``known`` names, and the
    verdict is then unanchored (``domain.trust``). ``watch`` sees the first reading go by.
    """
    report = verify_records(watch(lines()), from_record)
    session_id = report.session_id or ""
    # The report names a broken chain; here every line is a leaf as is.
    leaves = [leaf_of(r.hash) for r in lines() if r.stream_id == session_id]
    mine = None if proof is None else head_of(proof.checkpoints, session_id)
    head = None if mine is None else Claim(EXPORT_PROOF, mine)
    trust = resolve_trust(known, () if proof is None else proof.keys(), retired)
    kept = kept_for(session_id, mine)
    audit = audit_log(session_id, leaves, head, kept, trust, check)
    if proof is not None and mine is None:
        # A proof of other sessions proves nothing of this one: refused, not skipped.
        sessions = sorted({session_of(origin_of(note) or "") for note in proof.checkpoints})
        detail = (
            f"it holds no checkpoint of session '{session_id}' "
            f"(only of {', '.join(repr(s) for s in sessions)})"
        )
        findings = (*audit.findings, Finding(EXPORT_PROOF, False, detail))
        audit = LogAudit(audit.session_id, audit.events, findings, audit.kept)
    report.anchor = anchor_of(audit, head is not None)
    return Verdict(report, audit)


def judge_bytes(
    export: bytes,
    proof: ExportProof | None,
    kept: Sequence[Claim],
    known: Iterable[VerifierKey],
    check: SignatureCheck,
) -> Verdict:
    """Judge an export held in memory, as a browser holds the file it was given."""
    return judge_export(
        lambda: read_stream(io.BytesIO(export)), proof, lambda _s, _h: tuple(kept), known, (), check
    )


# An Ed25519 check to make: the public key, the message and the signature.
SignatureRequest = tuple[bytes, bytes, bytes]


def signature_requests(
    proof: ExportProof | None, kept: Sequence[Claim], known: Iterable[VerifierKey]
) -> list[SignatureRequest]:
    """Return every signature a verdict with these may check, to be checked ahead of it.

    A browser checks Ed25519 with WebCrypto, which answers only asynchronously; so the page
    checks these first and the verdict's ``SignatureCheck`` looks the answers up. The list
    covers each signature of each note by a key of the same name and id, which is every
    check ``verify_note`` can ask for; a note that does not parse is left to the verdict.
    """
    keys = {(key.name, key.key_id): key for key in known}
    if proof is not None:
        keys.update({(key.name, key.key_id): key for key in proof.keys()})
    notes = [*(proof.checkpoints if proof is not None else ()), *(claim.note for claim in kept)]
    requests: list[SignatureRequest] = []
    for note in notes:
        try:
            signed = SignedNote.parse(read_kept(note))
        except MalformedError:
            continue
        message = signed.text.encode("utf-8")
        for signature in signed.signatures:
            key = keys.get((signature.name, signature.key_id))
            if key is not None:
                requests.append((key.public_key, message, signature.signature))
    return requests


def kept_claim(source: str, text: str) -> Claim:
    """Read a kept checkpoint: a signed note (extra final newlines allowed), or a receipt."""
    if text.lstrip().startswith("{"):
        return Claim(f"{source} (receipt)", Receipt.parse(text).checkpoint)
    return Claim(source, read_kept(text))


def origin_of(note: str) -> str | None:
    """Return the origin a checkpoint note heads, None when it is no checkpoint."""
    try:
        return Checkpoint.parse(SignedNote.parse(read_kept(note)).text).origin
    except MalformedError:
        return None


def head_of(notes: Iterable[str], session_id: str) -> str | None:
    """Return the first of ``notes`` that heads ``session_id``'s log."""
    for note in notes:
        origin = origin_of(note)
        if origin is not None and session_of(origin) == session_id:
            return note
    return None


def anchor_of(audit: LogAudit, headed: bool) -> Anchor:
    """Return what the log was held to: kept checkpoints, its signed one, or itself alone."""
    if audit.kept:
        return Anchor.KEPT_CHECKPOINT
    return Anchor.SIGNED_CHECKPOINT if headed else Anchor.LOG_ALONE


def leaf_of(hash_hex: str) -> bytes:
    """Return an event's hash as a leaf; a hash that is not hex is no leaf (fails the tree)."""
    try:
        return bytes.fromhex(hash_hex)
    except ValueError:
        return b""

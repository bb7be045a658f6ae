"""Check a whole log against the checkpoints that head it: the server's and those kept.

A log alone can only agree with itself. What shows that it is the log someone was shown
before is a checkpoint they kept: the first ``size`` events of the log must still fold to
its root. The *head* is the checkpoint the log's source claims for it now (a store's
latest, an export's proof) and must head exactly the log; each *kept* checkpoint must be
a prefix of it. Two checkpoints of one session and size with different roots prove the
signer showed two different logs (a fork), whichever of them the log matches.

Every problem becomes a finding naming which checkpoint failed and why; nothing raises,
so a report lists them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from diceledger.domain.checkpoint import SignedCheckpoint, check_log, open_checkpoint
from diceledger.domain.errors import VerificationError
from diceledger.domain.export_proof import check_heads
from diceledger.domain.merkle import MerkleTree
from diceledger.domain.signed_note import SignatureCheck
from diceledger.domain.trust import Trust


@dataclass(frozen=True, slots=True)
class Claim:
    """A checkpoint note and where it came from (shown in the report)."""

    source: str
    note: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One checkpoint checked: what it is, whether it holds, and what was found."""

    source: str
    ok: bool
    detail: str
    by_document: bool = False  # it holds, but only a key the document carries signed it

    def __str__(self) -> str:
        return f"{self.source}: {self.detail}"


@dataclass(frozen=True, slots=True)
class LogAudit:
    """What the checkpoints say about one session's log."""

    session_id: str
    events: int
    findings: tuple[Finding, ...]
    kept: int  # how many kept checkpoints were checked

    @property
    def ok(self) -> bool:
        """Tell whether every checkpoint holds."""
        return all(finding.ok for finding in self.findings)

    @property
    def anchored(self) -> bool:
        """Tell whether every checkpoint that holds is signed by a key the reader trusts."""
        return not any(finding.by_document for finding in self.findings)

    @property
    def first_failure(self) -> Finding | None:
        """Return the first finding that does not hold."""
        return next((finding for finding in self.findings if not finding.ok), None)


def audit_log(
    session_id: str,
    leaves: Sequence[bytes],
    head: Claim | None,
    kept: Sequence[Claim],
    trust: Trust,
    check: SignatureCheck,
) -> LogAudit:
    """Check the log's leaves against its head checkpoint and every kept checkpoint."""
    findings: list[Finding] = []
    opened: list[tuple[Claim, SignedCheckpoint]] = []
    for claim, exact in ([(head, True)] if head else []) + [(claim, False) for claim in kept]:
        signed, finding = _checked(session_id, leaves, claim, exact, trust, check)
        findings.append(finding)
        if signed is not None:
            opened.append((claim, signed))
    findings += _forks(opened)
    return LogAudit(session_id, len(leaves), tuple(findings), len(kept))


def remembered(source: str, leaves: Sequence[bytes], size: int, root: bytes) -> Finding:
    """Check the log against a tree head remembered apart from it: a prefix, the same root."""
    if len(leaves) < size:
        detail = f"remembers {size} signed events; the log has {len(leaves)}: events were removed"
        return Finding(source, False, detail)
    if MerkleTree(leaves[:size]).root() != root:
        detail = (
            f"the first {size} events of the log are not the ones it remembers as signed: "
            "the log was rewritten or its tree forked"
        )
        return Finding(source, False, detail)
    return Finding(source, True, f"{size} signed events remembered, a prefix of the log")


def _checked(
    session_id: str,
    leaves: Sequence[bytes],
    claim: Claim,
    exact: bool,
    trust: Trust,
    check: SignatureCheck,
) -> tuple[SignedCheckpoint | None, Finding]:
    try:
        signed = open_checkpoint(claim.note, trust.keys, check)
        trust.check(signed)
    except VerificationError as error:
        return None, Finding(claim.source, False, f"signature: {error}")
    size = signed.checkpoint.size
    if signed.session_id != session_id:
        detail = f"heads session '{signed.session_id}', not '{session_id}'"
        return signed, Finding(claim.source, False, detail)
    try:
        if exact:
            check_heads(signed.checkpoint, leaves)
        else:
            check_log(signed.checkpoint, leaves)
    except VerificationError as error:
        return signed, Finding(claim.source, False, str(error))
    by_document = not trust.pinned_signer(signed)
    vouched = "; its key is vouched for only by the document" if by_document else ""
    what = "heads exactly" if exact else "is a prefix of"
    detail = f"{size} events signed by {signed.signer}, {what} the log{vouched}"
    return signed, Finding(claim.source, True, detail, by_document)


def _forks(opened: Sequence[tuple[Claim, SignedCheckpoint]]) -> list[Finding]:
    found = []
    for number, (claim, signed) in enumerate(opened):
        for other_claim, other in opened[number + 1 :]:
            ours, theirs = signed.checkpoint, other.checkpoint
            if ours.origin == theirs.origin and ours.size == theirs.size:
                if ours.root != theirs.root:
                    found.append(
                        Finding(
                            f"{claim.source} and {other_claim.source}",
                            False,
                            f"a fork: {signed.signer} signed two different logs of "
                            f"{ours.size} events of session '{signed.session_id}'",
                        )
                    )
    return found

"""The proof an export carries: each session's signed checkpoint and the signer's keys.

An export file (JSON Lines, one event per line) keeps its format; its proof travels beside
it as one JSON document (docs/verification.md, "Exports and their proof"):

    {"format": "diceledger/export-proof/v1",
     "checkpoints": ["<signed checkpoint note>", ...],     one per session in the export
     "verifier_keys": ["<name>+<key id>+<base64 key>", ...]}  the signing server's keys

Each checkpoint heads exactly its session's events in the file: the same number of
events, the same Merkle root. The keys say who signed; whether to trust them is the
reader's decision (``domain.trust``), never the file's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from diceledger.domain.checkpoint import Checkpoint, SignedCheckpoint, open_checkpoint
from diceledger.domain.errors import MalformedError, ProofError
from diceledger.domain.merkle import MerkleTree
from diceledger.domain.signed_note import SignatureCheck, VerifierKey

EXPORT_PROOF_FORMAT = "diceledger/export-proof/v1"


@dataclass(frozen=True, slots=True)
class ExportProof:
    """The signed checkpoints of an export's sessions, and the keys that signed them."""

    checkpoints: tuple[str, ...]
    verifier_keys: tuple[str, ...]

    def to_json(self) -> str:
        """Return the proof as one JSON document."""
        document = {
            "format": EXPORT_PROOF_FORMAT,
            "checkpoints": list(self.checkpoints),
            "verifier_keys": list(self.verifier_keys),
        }
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def parse(cls, text: str) -> ExportProof:
        """Read a proof document; refuse one that breaks the format."""
        try:
            document = json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            raise MalformedError("an export's proof must be one JSON document") from None
        if not isinstance(document, dict) or set(document) != {
            "format",
            "checkpoints",
            "verifier_keys",
        }:
            raise MalformedError(
                "an export's proof holds exactly: format, checkpoints, verifier_keys"
            )
        if document["format"] != EXPORT_PROOF_FORMAT:
            raise MalformedError(f"not an export proof of format {EXPORT_PROOF_FORMAT}")
        notes, keys = document["checkpoints"], document["verifier_keys"]
        if not _strings(notes) or not _strings(keys):
            raise MalformedError("an export's proof lists its checkpoints and keys as strings")
        proof = cls(tuple(notes), tuple(keys))
        proof.keys()  # refuse a malformed key now, not when it is first needed
        return proof

    def keys(self) -> tuple[VerifierKey, ...]:
        """Return the verifier keys the proof names."""
        return tuple(VerifierKey.parse(text) for text in self.verifier_keys)


def check_heads(checkpoint: Checkpoint, leaves: Sequence[bytes]) -> None:
    """Check that ``checkpoint`` heads exactly this log: as many events, the same root."""
    if len(leaves) != checkpoint.size:
        change = "lost" if len(leaves) < checkpoint.size else "gained"
        raise ProofError(
            f"the log has {len(leaves)} events; its checkpoint signs {checkpoint.size}: "
            f"it {change} events since it was signed"
        )
    if MerkleTree(leaves).root() != checkpoint.root:
        raise ProofError(
            f"the {len(leaves)} events of the log are not the ones its checkpoint signs: "
            "the log was rewritten"
        )


def check_export(
    proof: ExportProof,
    logs: Mapping[str, Sequence[bytes]],
    trusted: Iterable[VerifierKey],
    check: SignatureCheck,
) -> dict[str, SignedCheckpoint]:
    """Check each checkpoint of ``proof`` against its session's leaves in ``logs``.

    Returns the opened checkpoints by session. Raises SignatureError for a checkpoint no
    trusted key signed, ProofError for one that does not head its session's events.
    Sessions of ``logs`` without a checkpoint are left out of the result: whether that is
    acceptable is the caller's decision.
    """
    keys = tuple(trusted)
    opened: dict[str, SignedCheckpoint] = {}
    for note in proof.checkpoints:
        signed = open_checkpoint(note, keys, check)
        session = signed.session_id
        if session in opened:
            raise ProofError(f"the proof holds two checkpoints of session '{session}'")
        if session not in logs:
            raise ProofError(f"the proof signs session '{session}', which the export lacks")
        try:
            check_heads(signed.checkpoint, logs[session])
        except ProofError as error:
            raise ProofError(f"session '{session}': {error}") from None
        opened[session] = signed
    return opened


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)

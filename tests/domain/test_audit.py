"""A log checked against checkpoints: the head exactly, each kept one as a prefix, forks named.

Also the proof an export carries, and whose keys a reader trusts for it.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from diceledger.domain.audit import Claim, audit_log
from diceledger.domain.checkpoint import Checkpoint, origin_for
from diceledger.domain.errors import MalformedError, ProofError, SignatureError
from diceledger.domain.export_proof import EXPORT_PROOF_FORMAT, ExportProof, check_export
from diceledger.domain.merkle import MerkleTree
from diceledger.domain.trust import Trust, resolve_trust
from tests.domain.test_signed_note import SERVER, key, leaves, signed_by, stand_in_check

SESSION = "crypt-1a2b3c"
TRUSTED = Trust((key(),))


def note(log: list[bytes], size: int | None = None, signer: str = "server") -> str:
    """Return the signed checkpoint of the first ``size`` leaves of ``log``."""
    size = len(log) if size is None else size
    checkpoint = Checkpoint(origin_for(SERVER, SESSION), size, MerkleTree(log[:size]).root())
    return str(signed_by(key(seed=signer.encode()), checkpoint.text()))


def other_dice(n: int) -> list[bytes]:
    return [hashlib.sha256(b"\x00" + f"other {i}".encode()).digest() for i in range(n)]


def test_a_log_that_holds_what_every_checkpoint_signed_passes() -> None:
    log = leaves(9)
    audit = audit_log(
        SESSION,
        log,
        Claim("head", note(log)),
        [Claim("ann", note(log, 4)), Claim("bob", note(log, 9))],
        TRUSTED,
        stand_in_check,
    )
    assert audit.ok and audit.kept == 2 and audit.events == 9
    assert [f.detail for f in audit.findings] == [
        f"9 events signed by {SERVER}, heads exactly the log",
        f"4 events signed by {SERVER}, is a prefix of the log",
        f"9 events signed by {SERVER}, is a prefix of the log",
    ]


def test_a_dropped_last_event_fails_the_kept_checkpoint_and_names_it() -> None:
    log = leaves(9)
    audit = audit_log(SESSION, log[:8], None, [Claim("ann", note(log))], TRUSTED, stand_in_check)
    assert audit.first_failure is not None
    assert str(audit.first_failure) == (
        "ann: the log has 8 events; the kept checkpoint covers 9: events were removed"
    )


def test_a_log_replayed_with_other_dice_fails_as_rewritten() -> None:
    kept = note(leaves(6))
    audit = audit_log(SESSION, other_dice(7), None, [Claim("ann", kept)], TRUSTED, stand_in_check)
    assert audit.first_failure is not None
    assert "the log was rewritten" in audit.first_failure.detail


def test_a_head_that_does_not_sign_exactly_the_log_fails() -> None:
    log = leaves(5)
    grown = audit_log(
        SESSION, log + other_dice(1), Claim("head", note(log)), [], TRUSTED, stand_in_check
    )
    assert grown.first_failure is not None
    assert "it gained events since it was signed" in grown.first_failure.detail
    shrunk = audit_log(SESSION, log[:4], Claim("head", note(log)), [], TRUSTED, stand_in_check)
    assert shrunk.first_failure is not None
    assert "it lost events since it was signed" in shrunk.first_failure.detail


def test_two_checkpoints_of_one_size_with_different_roots_are_named_a_fork() -> None:
    shown_ann, shown_bob = leaves(6), leaves(4) + other_dice(2)
    audit = audit_log(
        SESSION,
        shown_bob,
        None,
        [Claim("ann's", note(shown_ann)), Claim("bob's", note(shown_bob))],
        TRUSTED,
        stand_in_check,
    )
    failures = [str(f) for f in audit.findings if not f.ok]
    assert failures == [
        "ann's: the first 6 events of the log are not the ones the kept checkpoint covers: "
        "the log was rewritten",
        f"ann's and bob's: a fork: {SERVER} signed two different logs of 6 events of "
        f"session '{SESSION}'",
    ]


def test_a_checkpoint_signed_by_another_key_is_named_by_its_signature() -> None:
    log = leaves(3)
    audit = audit_log(
        SESSION, log, None, [Claim("kept", note(log, signer="impostor"))], TRUSTED, stand_in_check
    )
    assert audit.first_failure is not None
    assert audit.first_failure.detail.startswith("signature: no trusted key signed this note")


def test_a_checkpoint_of_another_session_does_not_vouch_for_this_one() -> None:
    log = leaves(3)
    audit = audit_log("other-1", log, None, [Claim("kept", note(log))], TRUSTED, stand_in_check)
    assert audit.first_failure is not None
    assert audit.first_failure.detail == f"heads session '{SESSION}', not 'other-1'"


# ---- whose keys a reader trusts -----------------------------------------------------------


def test_a_carried_key_is_used_only_for_a_server_the_reader_does_not_know() -> None:
    stranger = key("far.example/diceledger", b"far")
    impostor = key(seed=b"impostor")  # claims the name of a server the reader knows
    trust = resolve_trust([key()], [stranger, impostor])
    assert trust.keys == (key(), stranger)
    assert trust.pinned_for(key()) and not trust.pinned_for(stranger)
    assert not trust.pinned_for(impostor)


def test_a_log_checked_with_only_its_own_key_says_so() -> None:
    log = leaves(3)
    trust = resolve_trust([], [key()])
    audit = audit_log(SESSION, log, Claim("head", note(log)), [], trust, stand_in_check)
    assert audit.ok
    assert audit.findings[0].detail.endswith("its key is vouched for only by the document")


# ---- an export's proof -------------------------------------------------------------------


def test_an_export_proof_reads_back_to_itself() -> None:
    proof = ExportProof((note(leaves(3)),), (str(key()),))
    assert ExportProof.parse(proof.to_json()) == proof
    assert (
        json.loads(proof.to_json())["format"]
        == EXPORT_PROOF_FORMAT
        == ("diceledger/export-proof/v1")
    )
    assert proof.keys() == (key(),)


@pytest.mark.parametrize(
    "document",
    [
        "not json",
        "[]",
        '{"format": "diceledger/export-proof/v1", "checkpoints": []}',
        '{"format": "other/v1", "checkpoints": [], "verifier_keys": []}',
        '{"format": "diceledger/export-proof/v1", "checkpoints": [1], "verifier_keys": []}',
        '{"format": "diceledger/export-proof/v1", "checkpoints": [], "verifier_keys": ["x"]}',
    ],
)
def test_a_malformed_export_proof_is_refused(document: str) -> None:
    with pytest.raises(MalformedError):
        ExportProof.parse(document)


def test_an_export_proof_must_head_exactly_the_files_events() -> None:
    log = leaves(5)
    proof = ExportProof((note(log),), (str(key()),))
    opened = check_export(proof, {SESSION: log}, [key()], stand_in_check)
    assert opened[SESSION].checkpoint.size == 5
    with pytest.raises(ProofError, match="its checkpoint signs 5: it lost events"):
        check_export(proof, {SESSION: log[:4]}, [key()], stand_in_check)
    with pytest.raises(ProofError, match="which the export lacks"):
        check_export(proof, {"other-1": log}, [key()], stand_in_check)
    with pytest.raises(SignatureError):
        check_export(proof, {SESSION: log}, [key(seed=b"impostor")], stand_in_check)

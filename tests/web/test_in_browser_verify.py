"""The verify page's Python reaches ``diceledger verify --file``'s verdict, run here in CPython.

The page runs ``web.in_browser`` under Pyodide; these tests run the same functions in
this interpreter, checking signatures as the page's WebCrypto does (every check asked
for, answered ahead of the verdict), and compare each JSON report with the command's:
the whole conformance corpus, the suite's tamper cases, and signed exports held to their
proof, a pinned key and a kept checkpoint.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from diceledger.conformance import INDEX
from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.export_proof import ExportProof
from diceledger.domain.session import commands as cmd
from diceledger.domain.signed_note import SignedNote, VerifierKey
from diceledger.infra.app.application import Application
from diceledger.infra.app.export_verdict import kept_claim
from diceledger.infra.app.verification import Reader, verify_export
from diceledger.infra.bootstrap import bootstrap
from diceledger.infra.ledger.signed_exports import write_proof
from diceledger.infra.ledger.signing import SigningKey, ed25519_check
from diceledger.web.in_browser import signatures_to_check, verify
from tests.conformance.corpus import FOLDER as CORPUS
from tests.web.sessions import Cli, PlayedSession, play_session
from tests.web.tampering import TAMPERING, tampered_copy

CORPUS_CASES: list[dict[str, Any]] = json.loads((CORPUS / INDEX).read_text())["cases"]
CHECK = cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12))


def in_browser(
    path: Path, proof: str | None = None, kept: tuple[str, ...] = (), keys: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Verify as the page does: ask which signatures to check, check them, then verify."""
    request: dict[str, Any] = {"proof": proof, "kept": list(kept), "keys": list(keys)}
    asked = json.loads(signatures_to_check(json.dumps(request)))
    request["signatures"] = [
        check for check in asked if ed25519_check(*(base64.b64decode(part) for part in check))
    ]
    report: dict[str, Any] = json.loads(verify(str(path), json.dumps(request)))
    return report


@pytest.mark.parametrize("case", CORPUS_CASES, ids=[case["file"] for case in CORPUS_CASES])
def test_every_conformance_case_gets_the_command_lines_report(case: dict[str, Any]) -> None:
    path = CORPUS / case["file"]
    report = in_browser(path)
    assert report == Cli("sqlite://").verify_file(path)
    expected = case["first_failure"]
    if expected is None:
        assert report["ok"] is True
    else:
        first = report["first_failure"]
        assert (first["position"], first["stream_version"]) == (
            expected["position"],
            expected["stream_version"],
        )
        assert expected["reason"] in first["reason"]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> PlayedSession:
    return play_session(tmp_path_factory.mktemp("played"))


@pytest.mark.parametrize("name", TAMPERING)
def test_every_tamper_case_gets_the_command_lines_report(
    played: PlayedSession, name: str, tmp_path: Path
) -> None:
    path = tampered_copy(played, name, tmp_path)
    report = in_browser(path)
    assert report == Cli("sqlite://").verify_file(path)
    assert report["ok"] is False
    assert TAMPERING[name][1] in report["first_failure"]["reason"]


def test_a_file_the_command_refuses_is_refused_with_its_words(tmp_path: Path) -> None:
    path = tmp_path / "not-an-export.jsonl"
    path.write_text('{"a":1}\n', encoding="utf-8")
    report = in_browser(path)
    assert report["error"].startswith("line 1: missing ['position', ")


@dataclass
class Signed:
    """A signed session's export and proof, the key that signs it, and a checkpoint kept."""

    app: Application
    session_id: str
    export: Path
    proof: Path
    key: VerifierKey

    def proof_text(self) -> str:
        return self.proof.read_text(encoding="utf-8")


@pytest.fixture
def signed(tmp_path: Path) -> Iterator[Signed]:
    app = bootstrap(f"sqlite:///{tmp_path / 'store.sqlite'}", signing_key=tmp_path / "k.key")
    try:
        session_id = app.start_session("gm", "Tomb of Ash").session_id
        app.join("ann", session_id, cmd.JoinSession("ann", "ann's words"))
        app.request_roll("ann", session_id, CHECK)
        exported = app.export("gm", session_id)
        export = tmp_path / "tomb.jsonl"
        export.write_text("".join(exported.lines), encoding="utf-8")
        assert exported.proof is not None
        proof = tmp_path / "tomb.proof.json"
        write_proof(exported.proof, proof)
        key = VerifierKey.parse(exported.proof.verifier_keys[0])
        yield Signed(app, session_id, export, proof, key)
    finally:
        app.close()


def command_line(signed: Signed, reader: Reader | None = None) -> dict[str, Any]:
    return verify_export(signed.export, signed.proof, reader or Reader()).as_dict()


def test_a_signed_export_with_its_pinned_key_is_proven_as_on_the_command_line(
    signed: Signed,
) -> None:
    report = in_browser(signed.export, signed.proof_text(), keys=(str(signed.key),))
    assert report == command_line(signed, Reader(given=(signed.key,)))
    assert report["verdict"] == "proven"
    assert report["checkpoints"]["checked"] == "the log and its signed checkpoint"


def test_a_signed_export_with_no_key_pinned_is_unanchored_as_on_the_command_line(
    signed: Signed,
) -> None:
    report = in_browser(signed.export, signed.proof_text())
    assert report == command_line(signed)
    assert report["ok"] is True and report["verdict"] == "unanchored"


def test_a_proof_signed_by_another_key_of_the_same_name_fails_as_on_the_command_line(
    signed: Signed,
) -> None:
    impostor = SigningKey.generate(signed.key.name)
    genuine = ExportProof.parse(signed.proof_text()).checkpoints[0]
    resigned = impostor.sign_checkpoint(Checkpoint.parse(SignedNote.parse(genuine).text))
    write_proof(ExportProof((str(resigned),), (str(impostor.verifier),)), signed.proof)
    report = in_browser(signed.export, signed.proof_text(), keys=(str(signed.key),))
    assert report == command_line(signed, Reader(given=(signed.key,)))
    assert report["verdict"] == "failed"
    assert "no trusted key signed this note" in report["first_failure"]["reason"]


def test_a_signature_the_browser_did_not_confirm_is_not_trusted(signed: Signed) -> None:
    request = {"proof": signed.proof_text(), "keys": [str(signed.key)], "signatures": []}
    report = json.loads(verify(str(signed.export), json.dumps(request)))
    assert report["ok"] is False
    assert "is forged" in report["first_failure"]["reason"]


def test_a_kept_checkpoint_of_more_events_than_the_export_fails_as_on_the_command_line(
    signed: Signed,
) -> None:
    signed.app.request_roll("ann", signed.session_id, CHECK)
    note = signed.app.proofs.latest(signed.session_id)
    assert note is not None
    report = in_browser(signed.export, signed.proof_text(), (note,), (str(signed.key),))
    reader = Reader(given=(signed.key,), kept=(kept_claim("a kept checkpoint", note),))
    assert report == command_line(signed, reader)
    assert report["ok"] is False
    assert report["checkpoints"]["checked"] == "the log and kept checkpoints"

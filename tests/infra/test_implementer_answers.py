"""What docs/verification.md answers for an outside implementer, held by the code.

Duplicate JSON keys are refused; the schema's envelope patterns are enforced by verify as
the schema states them; a resolution's ``detail`` is kept but not decided again; a proof
file of another session is refused rather than ignored.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import CorruptLogError
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.infra.app.verification import verify_export, verify_file
from diceledger.infra.ledger.signed_exports import write_proof
from diceledger.infra.store.exporting import write_export
from tests.infra.forging import rechain
from tests.infra.support import memory_services


def played() -> list[RecordedEvent]:
    services = memory_services()
    sid = services.sessions.start("Answers", "gm").session_id
    services.sessions.execute(sid, "ann", cmd.JoinSession("ann"))
    check = cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12), faces=(15,))
    services.sessions.execute(sid, "ann", check)
    return list(services.store.read_stream(sid))


def exported(records: list[RecordedEvent], tmp_path: Path) -> list[str]:
    path = tmp_path / "log.jsonl"
    write_export(records, path)
    return path.read_text().splitlines(keepends=True)


def test_a_duplicate_key_is_refused_naming_it(tmp_path: Path) -> None:
    lines = exported(played(), tmp_path)
    # The same key twice: which value counts would be each reader's guess.
    lines[0] = lines[0].replace('"stream_version":1,', '"stream_version":1,"stream_version":1,')
    path = tmp_path / "twice.jsonl"
    path.write_text("".join(lines))
    with pytest.raises(CorruptLogError, match="line 1: the key 'stream_version' appears twice"):
        verify_file(path)


def test_a_duplicate_key_inside_data_is_refused_too(tmp_path: Path) -> None:
    lines = exported(played(), tmp_path)
    lines[1] = lines[1].replace('"data":{', '"data":{"name":"eve",', 1)
    path = tmp_path / "twice.jsonl"
    path.write_text("".join(lines))
    with pytest.raises(CorruptLogError, match="line 2: the key 'name' appears twice"):
        verify_file(path)


def test_an_upper_case_event_id_the_schema_refuses_verify_refuses(tmp_path: Path) -> None:
    records = played()
    records[1] = replace(records[1], event_id=records[1].event_id.upper())
    path = tmp_path / "upper.jsonl"
    write_export(rechain(records), path)
    with pytest.raises(CorruptLogError, match="line 2: event_id is not like"):
        verify_file(path)


def test_a_resolutions_detail_is_kept_but_not_decided_again(tmp_path: Path) -> None:
    records = played()
    at = next(i for i, r in enumerate(records) if r.event_type == "CheckResolved")
    # An older release rendered the line otherwise: the log must still verify.
    records[at] = replace(records[at], data={**records[at].data, "detail": "rendered otherwise"})
    path = tmp_path / "detail.jsonl"
    write_export(rechain(records), path)
    assert verify_file(path).ok


def test_a_proof_file_of_another_session_is_refused(tmp_path: Path) -> None:
    from diceledger.domain.export_proof import ExportProof
    from diceledger.infra.bootstrap import bootstrap

    app = bootstrap(f"sqlite:///{tmp_path / 'store.sqlite'}", signing_key=tmp_path / "k.key")
    try:
        mine = app.start_session("gm", "Mine").session_id
        other = app.start_session("gm", "Other").session_id
        path = tmp_path / "mine.jsonl"
        path.write_text("".join(app.export("gm", mine).lines))
        proof = app.export("gm", other).proof
        assert isinstance(proof, ExportProof)
        proof_file = tmp_path / "other.proof.json"
        write_proof(proof, proof_file)
        verdict = verify_export(path, proof_file)
    finally:
        app.close()
    assert not verdict.ok
    detail = next(f.detail for f in verdict.audit.findings if not f.ok)
    assert detail == f"it holds no checkpoint of session '{mine}' (only of '{other}')"
    assert json.loads(proof_file.read_text())["checkpoints"]

"""A request's events, their signature and its kept answer commit together or not at all.

A failure anywhere after the append (signing, rendering the answer) stands in for a crash
at that moment: the session must go on taking writes, and a retried Idempotency-Key must
either get the answer of what committed or run afresh, never wait forever.
"""

from __future__ import annotations

import json
import threading

import pytest

from diceledger.domain.checkpoint import Checkpoint, SignedCheckpoint
from diceledger.domain.json import JsonObject
from diceledger.infra.app.results import RollResult
from diceledger.infra.ledger.signing import SigningKey
from diceledger.web.routes import rolls
from tests.api.conftest import Api, Table

CHECK = {"kind": "check", "expression": "1d20+2", "target": 12}


class Failed(Exception):
    """A failure injected after the append, before the request answered."""


def rolls_of(api: Api, table: Table) -> list[int]:
    shown = api.get(f"/api/v1/sessions/{table.sid}", table.gm).json()["rolls"]
    return [roll["roll_id"] for roll in shown]


def test_a_roll_whose_answer_failed_is_undone_and_its_retry_rolls_once(
    api: Api, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = f"/api/v1/sessions/{table.sid}/rolls"
    answered = rolls.roll_json

    def fails_once(result: RollResult) -> JsonObject:
        monkeypatch.setattr(rolls, "roll_json", answered)
        raise Failed

    monkeypatch.setattr(rolls, "roll_json", fails_once)
    failed = api.post(path, table.ann, CHECK, key="lost-answer")
    assert failed.status_code == 500 and failed.json()["type"] == "/problems/internal"
    assert rolls_of(api, table) == []  # the appended, signed roll was undone with it
    retried = api.post(path, table.ann, CHECK, key="lost-answer")
    assert retried.status_code == 201, retried.text  # not "has not answered yet"
    again = api.post(path, table.ann, CHECK, key="lost-answer")
    assert again.json() == retried.json() and again.headers["Idempotency-Replayed"] == "true"
    assert rolls_of(api, table) == [retried.json()["roll_id"]]


def test_a_failure_between_append_and_signature_leaves_the_session_writable(
    api: Api, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = f"/api/v1/sessions/{table.sid}/rolls"
    sign = SigningKey.sign_checkpoint

    def fails_once(key: SigningKey, checkpoint: Checkpoint) -> SignedCheckpoint:
        monkeypatch.setattr(SigningKey, "sign_checkpoint", sign)
        raise Failed

    monkeypatch.setattr(SigningKey, "sign_checkpoint", fails_once)
    failed = api.post(path, table.ann, CHECK, key="unsigned")
    assert failed.status_code == 500 and failed.json()["type"] == "/problems/internal"
    other = api.post(path, table.bob, CHECK, key="next")
    assert other.status_code == 201, other.text  # no log-tampered, no `db adopt`
    retried = api.post(path, table.ann, CHECK, key="unsigned")
    assert retried.status_code == 201, retried.text
    assert sorted(rolls_of(api, table)) == sorted(
        [other.json()["roll_id"], retried.json()["roll_id"]]
    )
    verdict = api.get(f"/api/v1/sessions/{table.sid}/verify", table.gm).json()
    assert verdict["ok"] is True


def test_concurrent_retries_of_one_key_roll_once_and_share_one_answer(
    api: Api, table: Table
) -> None:
    path = f"/api/v1/sessions/{table.sid}/rolls"
    answers: list[tuple[int, str]] = []
    start = threading.Barrier(4)

    def send() -> None:
        start.wait(timeout=30)
        answer = api.post(path, table.ann, CHECK, key="same-key")
        answers.append((answer.status_code, answer.text))

    senders = [threading.Thread(target=send) for _ in range(4)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(timeout=60)
    assert len(answers) == 4
    assert {status for status, _ in answers} == {201}, answers
    assert len({text for _, text in answers}) == 1  # one answer, the first attempt's
    assert rolls_of(api, table) == [json.loads(answers[0][1])["roll_id"]]

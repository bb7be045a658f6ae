"""Run a POST at most once per Idempotency-Key: a retry gets the first answer."""

from __future__ import annotations

import json
from collections.abc import Callable

from fastapi import Request
from pydantic import BaseModel
from starlette.responses import Response

from diceledger.domain.errors import DiceledgerError, InvalidInputError, SessionBusyError
from diceledger.domain.json import JsonValue
from diceledger.infra.app.idempotency import Answer
from diceledger.web.context import WebServices
from diceledger.web.problems import PROBLEM_JSON, problem_body, problem_for

HEADER = "idempotency-key"
REPLAYED = "Idempotency-Replayed"

Work = Callable[[], JsonValue]


def run_once(
    request: Request,
    web: WebServices,
    scope: str,
    body: BaseModel | None,
    work: Work,
    *,
    status: int = 200,
    required: bool = False,
) -> Response:
    """Run ``work`` and answer JSON; with an Idempotency-Key, only the first time.

    Only a success is kept for retries. A refusal changed nothing, so it frees the key
    and keeps no row: a retry is decided afresh, and a refused caller leaves no trace. A
    server failure leaves the key claimed: its outcome is unknown, and a retry is told so
    rather than run again.
    """
    key = request.headers.get(HEADER)
    if key is None:
        if required:
            raise InvalidInputError(
                "requests that roll dice need an Idempotency-Key header, so a retry cannot "
                "roll twice"
            )
        return _respond(_answer(work, status))
    fingerprint = f"{request.method} {request.url.path}\n" + (
        body.model_dump_json() if body is not None else ""
    )
    stored = web.requests.begin(scope, key, fingerprint.encode())
    if stored is not None:
        return _respond(stored, replayed=True)
    try:
        answer = _answer(work, status)
    except SessionBusyError:
        web.requests.abandon(scope, key)  # it wrote nothing: the retry it asks for may run
        raise
    if answer.status >= 400:
        web.requests.abandon(scope, key)
    else:
        web.requests.finish(scope, key, answer)
    return _respond(answer)


def _answer(work: Work, status: int) -> Answer:
    try:
        return Answer(status, json.dumps(work(), ensure_ascii=False))
    except DiceledgerError as error:
        problem = problem_for(error)
        if problem.status >= 500:
            raise
        return Answer(problem.status, problem_body(problem, str(error)))


def _respond(answer: Answer, replayed: bool = False) -> Response:
    media = "application/json" if answer.status < 400 else PROBLEM_JSON
    headers = {REPLAYED: "true"} if replayed else {}
    return Response(answer.body, status_code=answer.status, media_type=media, headers=headers)

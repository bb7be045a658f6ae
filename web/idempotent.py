"""Run a POST at most once per Idempotency-Key: a retry gets the first answer."""

from __future__ import annotations

import json
from collections.abc import Callable

from fastapi import Request
from pydantic import BaseModel
from starlette.responses import Response

from diceledger.domain.errors import DiceledgerError, InvalidInputError
from diceledger.domain.json import JsonValue
from diceledger.infra.app.idempotency import Answer
from diceledger.web.answers import document_of
from diceledger.web.context import WebServices
from diceledger.web.problems import PROBLEM_JSON, problem_body, problem_for

HEADER = "idempotency-key"
REPLAYED = "Idempotency-Replayed"

Work = Callable[[], JsonValue | BaseModel]  # a typed answer, or a view as it is


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

    With a key, the work and the keeping of its answer are one transaction (see
    ``IdempotentRequests.run``): only a success is kept for retries, a refusal is undone
    and frees the key, and a server failure undoes everything, so a retry runs afresh.
    """
    key = request.headers.get(HEADER)
    if key is None:
        if required:
            require_key(request)
        return _respond(_answer(work, status))
    fingerprint = f"{request.method} {request.url.path}\n" + (
        body.model_dump_json() if body is not None else ""
    )
    answer, replayed = web.requests.run(
        scope, key, fingerprint.encode(), lambda: _answer(work, status)
    )
    return _respond(answer, replayed=replayed)


def require_key(request: Request) -> None:
    """Refuse a request that rolls dice without an Idempotency-Key (before any rate limit)."""
    if request.headers.get(HEADER) is None:
        raise InvalidInputError(
            "requests that roll dice need an Idempotency-Key header, so a retry cannot roll twice"
        )


def _answer(work: Work, status: int) -> Answer:
    try:
        done = work()
        document = document_of(done) if isinstance(done, BaseModel) else done
        return Answer(status, json.dumps(document, ensure_ascii=False))
    except DiceledgerError as error:
        problem = problem_for(error)
        if problem.status >= 500:
            raise
        return Answer(problem.status, problem_body(problem, str(error)))


def _respond(answer: Answer, replayed: bool = False) -> Response:
    media = "application/json" if answer.status < 400 else PROBLEM_JSON
    headers = {REPLAYED: "true"} if replayed else {}
    return Response(answer.body, status_code=answer.status, media_type=media, headers=headers)

"""Answer a retried request with its first answer, so a network retry never rolls twice."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from diceledger.domain.errors import InvalidInputError, KeyReusedError, RequestInProgressError
from diceledger.infra.access.store import AccessStore
from diceledger.infra.store.port import Clock, utc_now
from diceledger.infra.store.transaction import RollBack

MAX_KEY_LENGTH = 200
_IN_PROGRESS = "the first request with this Idempotency-Key has not answered yet"


@dataclass(frozen=True, slots=True)
class Answer:
    """A request's answer as it was first given: status and body."""

    status: int
    body: str


Work = Callable[[], Answer]


class IdempotentRequests:
    """Remember requests by (scope, key): the first attempt runs, retries get its answer."""

    def __init__(self, store: AccessStore, clock: Clock = utc_now) -> None:
        self._store = store
        self._clock = clock

    def run(self, scope: str, key: str, request: bytes, work: Work) -> tuple[Answer, bool]:
        """Run ``work`` once per (scope, key); return its answer and whether it is a replay.

        ``work`` runs in one transaction with the keeping of its answer: what it wrote and
        the answer commit together or not at all, so after a crash a retry either gets the
        answer or runs afresh, never a key that waits forever. A refusal (status 400 and
        up) is undone and not kept: a retry is decided afresh, a refused caller leaves no
        trace. An exception undoes everything and propagates. Concurrent attempts of one
        key may both run, but only the first to commit stands: the other's writes are
        undone and it answers the first one's answer, so no retry rolls twice.

        A key sent again with a different request is refused (KeyReusedError).
        """
        if not 0 < len(key) <= MAX_KEY_LENGTH or not key.isascii() or not key.isprintable():
            raise InvalidInputError(
                f"an Idempotency-Key is 1 to {MAX_KEY_LENGTH} printable ASCII characters"
            )
        fingerprint = hashlib.sha256(request).hexdigest()
        with self._store.one_connection():
            return self._run(scope, key, fingerprint, work)

    def _run(self, scope: str, key: str, fingerprint: str, work: Work) -> tuple[Answer, bool]:
        stored = self._stored(scope, key, fingerprint)
        if stored is not None:
            return stored, True
        answers: list[Answer] = []
        lost = False
        with self._store.transaction():
            answer = work()
            answers.append(answer)
            if answer.status >= 400:
                raise RollBack
            if not self._store.keep_answer(
                scope, key, fingerprint, answer.status, answer.body, self._clock()
            ):
                lost = True
                raise RollBack
        if lost:
            stored = self._stored(scope, key, fingerprint)
            if stored is None:  # the winner's answer is committed: it cannot vanish
                raise RequestInProgressError(_IN_PROGRESS)
            return stored, True
        return answers[0], False

    def _stored(self, scope: str, key: str, fingerprint: str) -> Answer | None:
        stored = self._store.find_request(scope, key)
        if stored is None:
            return None
        if stored.fingerprint != fingerprint:
            raise KeyReusedError("this Idempotency-Key was used for a different request")
        if stored.status is None or stored.body is None:
            # Only a server older than one-transaction requests left a claim unanswered:
            # whether its request committed is unknown, so it is never run again.
            raise RequestInProgressError(_IN_PROGRESS)
        return Answer(stored.status, stored.body)

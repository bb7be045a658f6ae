"""Answer a retried request with its first answer, so a network retry never rolls twice."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from diceledger.domain.errors import InvalidInputError, KeyReusedError, RequestInProgressError
from diceledger.infra.access.store import AccessStore
from diceledger.infra.store.port import Clock, utc_now

MAX_KEY_LENGTH = 200


@dataclass(frozen=True, slots=True)
class Answer:
    """A request's answer as it was first given: status and body."""

    status: int
    body: str


class IdempotentRequests:
    """Remember requests by (scope, key): the first attempt runs, retries get its answer."""

    def __init__(self, store: AccessStore, clock: Clock = utc_now) -> None:
        self._store = store
        self._clock = clock

    def begin(self, scope: str, key: str, request: bytes) -> Answer | None:
        """Claim ``key`` for ``request``; return the stored answer if it was seen before.

        A key sent again with a different request is refused (KeyReusedError); a retry
        whose first attempt has not answered yet is told so (RequestInProgressError): its
        outcome is not known, so running it again could roll twice.
        """
        if not 0 < len(key) <= MAX_KEY_LENGTH or not key.isascii() or not key.isprintable():
            raise InvalidInputError(
                f"an Idempotency-Key is 1 to {MAX_KEY_LENGTH} printable ASCII characters"
            )
        fingerprint = hashlib.sha256(request).hexdigest()
        stored = self._store.begin_request(scope, key, fingerprint, self._clock())
        if stored is None:
            return None
        if stored.fingerprint != fingerprint:
            raise KeyReusedError("this Idempotency-Key was used for a different request")
        if stored.status is None or stored.body is None:
            raise RequestInProgressError(
                "the first request with this Idempotency-Key has not answered yet"
            )
        return Answer(stored.status, stored.body)

    def finish(self, scope: str, key: str, answer: Answer) -> None:
        """Keep the answer for retries."""
        self._store.finish_request(scope, key, answer.status, answer.body)

    def abandon(self, scope: str, key: str) -> None:
        """Forget a claim whose request changed nothing, so a retry runs afresh."""
        self._store.forget_request(scope, key)

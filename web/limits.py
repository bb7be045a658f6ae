"""Per-process rate limits: a sliding window of recent uses per key."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from diceledger.domain.errors import DiceledgerError
from diceledger.infra.app.access import Credential

WINDOW_SECONDS = 60.0


class RateLimitedError(DiceledgerError):
    """Too many uses of one key within the window; ``retry_after`` in whole seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def per_member(what: str, credential: Credential) -> str:
    """Return the key that counts ``what`` for the credential's member, whichever device.

    A member holds a token per device; counting per token would give each device a
    budget of its own. The session's length prefixes it, so no two pairs share a key.
    """
    session_id = credential.session_id
    return f"{what}:{len(session_id)}:{session_id}:{credential.member}"


class Limits:
    """Count uses per key over the last minute, and open streams per key."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._uses: dict[str, deque[float]] = {}
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def use(self, key: str, per_minute: int, what: str) -> None:
        """Count one use of ``key``, or refuse it past ``per_minute``."""
        now = self._clock()
        with self._lock:
            uses = self._uses.setdefault(key, deque())
            while uses and uses[0] <= now - WINDOW_SECONDS:
                uses.popleft()
            if len(uses) >= per_minute:
                wait = int(uses[0] + WINDOW_SECONDS - now) + 1
                raise RateLimitedError(
                    f"at most {per_minute} {what} a minute; try again in {wait} s", wait
                )
            uses.append(now)

    def open_stream(self, key: str, most: int) -> None:
        """Count one more open stream for ``key``, or refuse it past ``most``."""
        with self._lock:
            if self._open.get(key, 0) >= most:
                raise RateLimitedError(f"at most {most} live streams at once per member", 5)
            self._open[key] = self._open.get(key, 0) + 1

    def close_stream(self, key: str) -> None:
        """Count one stream of ``key`` closed."""
        with self._lock:
            self._open[key] = max(self._open.get(key, 0) - 1, 0)

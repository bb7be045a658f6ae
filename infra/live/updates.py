"""Live updates: wake a worker's open streams when their session may have new events.

The application tells ``LiveUpdates.appended`` after every append (from whichever thread ran
the command). That wakes this worker's streams of the session at once and, on PostgreSQL,
publishes the append to the other workers of the server (infra/live/postgres.py), whose
listener wakes theirs. A wake-up carries no event: a woken stream reads the store, so a
lost or repeated wake-up costs at most some latency, never an event.

Streams wait in one asyncio event loop (the worker's); wake-ups come from other threads, so
they cross into the loop with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from diceledger.infra.store.transaction import after_commit

LOG = logging.getLogger("diceledger.live")

# Told that a session's stream reached a version.
Heard = Callable[[str, int], None]


class Channel(Protocol):
    """Carries appends between the worker processes of one server."""

    def publish(self, session_id: str, version: int) -> None:
        """Tell every worker that ``session_id`` reached ``version``; never raise."""

    def start(self, heard: Heard, missed: Callable[[], None]) -> None:
        """Start telling ``heard`` of every append published, and ``missed`` after a gap."""

    def stop(self) -> None:
        """Stop listening; return within a few seconds."""


class Subscription:
    """One stream's wake-up call: set when its session may have news, or when streams end."""

    def __init__(self, session_id: str, wakeups: Wakeups, turn: asyncio.Lock) -> None:
        self.session_id = session_id
        self._wakeups = wakeups
        self._event = asyncio.Event()
        # Shared by the session's streams in this loop: one reads at a time, so that one
        # asks the store (in a thread) while the others wait here, then find its read held.
        self.turn = turn

    @property
    def ending(self) -> bool:
        """Tell whether the worker is shutting down, so the stream should end."""
        return self._wakeups.ending

    def wake(self) -> None:
        """Wake the stream (on the event loop's thread)."""
        self._event.set()

    async def wait(self, seconds: float) -> bool:
        """Wait until woken or ``seconds`` pass; tell whether it was woken."""
        try:
            async with asyncio.timeout(max(seconds, 0.0)):
                await self._event.wait()
        except TimeoutError:
            return False
        finally:
            # Cleared before the stream reads the store: a wake-up during that read sets
            # it again, so the next wait returns at once and nothing is missed.
            self._event.clear()
        return True


class Wakeups:
    """The streams of one event loop, by session, and the wake-ups sent to them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: dict[str, set[Subscription]] = {}
        self._turns: dict[str, asyncio.Lock] = {}  # each watched session's turn to read
        # The highest version announced per watched session: an announcement already
        # covered (this worker's own append heard again from the channel) wakes nobody.
        self._announced: dict[str, int] = {}
        self._ending = False

    @property
    def ending(self) -> bool:
        """Tell whether streams are being ended (the worker is shutting down)."""
        return self._ending

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver wake-ups in ``loop``, the one the streams wait in."""
        with self._lock:
            self._loop = loop
            self._ending = False

    @contextmanager
    def subscribe(self, session_id: str) -> Iterator[Subscription]:
        """Watch a session for the duration of the block (call it in the event loop)."""
        with self._lock:
            turn = self._turns.setdefault(session_id, asyncio.Lock())
            subscription = Subscription(session_id, self, turn)
            self._waiting.setdefault(session_id, set()).add(subscription)
        try:
            yield subscription
        finally:
            with self._lock:
                watching = self._waiting.get(session_id, set())
                watching.discard(subscription)
                if not watching:
                    self._waiting.pop(session_id, None)
                    self._announced.pop(session_id, None)
                    self._turns.pop(session_id, None)

    def announce(self, session_id: str, version: int) -> None:
        """Wake the streams of ``session_id`` (from any thread)."""
        with self._lock:
            loop = self._loop
            if loop is None or session_id not in self._waiting:
                return
            if version <= self._announced.get(session_id, 0):
                return
            self._announced[session_id] = version
        _call_in(loop, self._wake, session_id)

    def announce_all(self) -> None:
        """Wake every stream: announcements may have been missed (from any thread)."""
        with self._lock:
            loop = self._loop
        if loop is not None:
            _call_in(loop, self._wake_all)

    def end_all(self) -> None:
        """End every stream, now and from now on (from any thread)."""
        with self._lock:
            self._ending = True
            loop = self._loop
        if loop is not None:
            _call_in(loop, self._wake_all)

    def watched(self) -> int:
        """Return how many streams are waiting."""
        with self._lock:
            return sum(len(watching) for watching in self._waiting.values())

    def _wake(self, session_id: str) -> None:
        with self._lock:
            watching = list(self._waiting.get(session_id, ()))
        for subscription in watching:
            subscription.wake()

    def _wake_all(self) -> None:
        with self._lock:
            watching = [s for subscriptions in self._waiting.values() for s in subscriptions]
        for subscription in watching:
            subscription.wake()


def _call_in(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: str) -> None:
    try:
        loop.call_soon_threadsafe(callback, *args)
    except RuntimeError:
        pass  # the loop has closed: the worker is gone, and its streams with it


class LiveUpdates:
    """What a server worker does after every append, and how its streams hear of others'."""

    def __init__(self, channel: Channel | None = None) -> None:
        self.wakeups = Wakeups()
        self._channel = channel

    def appended(self, session_id: str, version: int) -> None:
        """Tell the other workers and, once committed, this worker's streams (any thread).

        Called inside the append's transaction: the other workers' announcement joins it
        (PostgreSQL delivers a NOTIFY at commit and drops it at a rollback), and this
        worker's streams are woken after the commit, when their read can see the events.
        """
        if self._channel is not None:
            self._channel.publish(session_id, version)
        after_commit(functools.partial(self.wakeups.announce, session_id, version))

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver wake-ups in ``loop`` and start hearing the other workers."""
        self.wakeups.attach(loop)
        if self._channel is not None:
            self._channel.start(self.wakeups.announce, self.wakeups.announce_all)

    def end_streams(self) -> None:
        """End every open stream (the server is shutting down)."""
        self.wakeups.end_all()

    def stop(self) -> None:
        """End every stream and stop hearing the other workers."""
        self.wakeups.end_all()
        if self._channel is not None:
            self._channel.stop()

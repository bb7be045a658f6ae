"""One member's live feed of a session, read from the store a batch at a time, and the
wake-ups that tell its stream when to read (infra/live/updates.py implements them)."""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol

from diceledger.domain.projections.feed import Feed, FeedItem
from diceledger.domain.projections.logged import Logged
from diceledger.infra.projections.decoding import logged_all
from diceledger.infra.store.port import EventStore

# Reads a session's latest signed checkpoint note (None before the first).
LatestNote = Callable[[str], str | None]

# How many of a session's newest events a worker keeps for its streams. A stream further
# behind (one opening on a long session, say) reads its own way up from the store once.
HELD_EVENTS = 512


class SessionTail:
    """A session's newest events as this worker read them, shared by all its streams.

    When an append wakes a table's five streams, the first to read asks the store and the
    others take the same events from here: one store read and one decode per append per
    worker, not one per stream. A read is fresh for a stream when it began after that
    stream was woken, since the append that woke it was committed before the wake-up went
    out. Thread-safe: the streams read from the threadpool.
    """

    def __init__(self, store: EventStore, session_id: str, latest: LatestNote) -> None:
        self._store = store
        self._session_id = session_id
        self._latest = latest
        self._held: list[Logged] = []
        self._read_at = float("-inf")  # when the newest store read began (monotonic)
        self._note: str | None = None
        self._note_read_at = float("-inf")  # the same for the latest checkpoint
        self._lock = threading.Lock()

    def after(self, version: int, woken_at: float) -> list[Logged]:
        """Return the events past ``version``, read from the store if nothing read since
        ``woken_at`` (monotonic) holds them; every answer ends where an append ended."""
        with self._lock:
            if self._read_at < woken_at:
                self._read_at = time.monotonic()
                newest = self._held[-1].version if self._held else 0
                self._held.extend(self._read(newest))
                del self._held[:-HELD_EVENTS]
            if not self._held or version + 1 >= self._held[0].version:
                return [item for item in self._held if item.version > version]
        return self._read(version)  # further behind than the tail reaches

    def latest_note(self, woken_at: float) -> str | None:
        """Return the session's latest signed checkpoint, read again unless a read that
        began after ``woken_at`` (monotonic) already has it."""
        with self._lock:
            if self._note_read_at < woken_at:
                self._note_read_at = time.monotonic()
                self._note = self._latest(self._session_id)
            return self._note

    def _read(self, version: int) -> list[Logged]:
        return list(logged_all(self._store.read_stream(self._session_id, version + 1)))


class SessionTails:
    """The tails of the sessions this worker streams; each lives while a feed holds it."""

    def __init__(self, store: EventStore, latest: LatestNote) -> None:
        self._store = store
        self._latest = latest
        self._tails: weakref.WeakValueDictionary[str, SessionTail] = weakref.WeakValueDictionary()
        self._lock = threading.Lock()

    def of(self, session_id: str) -> SessionTail:
        """Return the session's tail, shared with every other feed of it in this worker."""
        with self._lock:
            tail = self._tails.get(session_id)
            if tail is None:
                tail = SessionTail(self._store, session_id, self._latest)
                self._tails[session_id] = tail
            return tail


class SessionFeed:
    """Read what a session appended since the last read, as its viewer may see it.

    The events always come from the store (through the worker's tail of the session),
    never from whoever announced them, so a lost or late announcement delays an event but
    cannot lose or change it. Not thread-safe: one reader at a time (one live stream owns
    one feed).
    """

    def __init__(self, tail: SessionTail, viewer: str) -> None:
        self._tail = tail
        self._feed = Feed(viewer)

    @property
    def version(self) -> int:
        """Return the version of the newest event read so far."""
        return self._feed.version

    def read(self, after: int = 0, woken_at: float = float("inf")) -> list[FeedItem]:
        """Read the events appended since the last read, fresh as of ``woken_at``
        (monotonic; by default, now); return those past version ``after``."""
        return self._feed.extend(self._tail.after(self._feed.version, woken_at), after)

    def latest_note(self, woken_at: float = float("inf")) -> str | None:
        """Return the session's latest signed checkpoint note, fresh as of ``woken_at``."""
        return self._tail.latest_note(woken_at)


class Wakeup(Protocol):
    """One stream's wake-up call: set when its session may have news, or when streams end."""

    @property
    def ending(self) -> bool:
        """Tell whether the worker is shutting down, so the stream should end."""
        ...

    async def wait(self, seconds: float) -> bool:
        """Wait until woken or ``seconds`` pass; tell whether it was woken."""
        ...


class Wakeups(Protocol):
    """Where a stream subscribes to its session's wake-ups, for as long as it runs."""

    def subscribe(self, session_id: str) -> AbstractContextManager[Wakeup]:
        """Subscribe to ``session_id``'s wake-ups until the block ends."""
        ...


class Live(Protocol):
    """A worker's live updates as its face runs them: started with the event loop, every
    stream ended on shutdown. The application announces each append to the same object."""

    @property
    def wakeups(self) -> Wakeups:
        """Return the wake-ups this worker's streams subscribe to."""
        ...

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver wake-ups in ``loop`` and start hearing the other workers."""
        ...

    def end_streams(self) -> None:
        """End every open stream (the server is shutting down)."""
        ...

    def stop(self) -> None:
        """End every stream and stop hearing the other workers."""
        ...

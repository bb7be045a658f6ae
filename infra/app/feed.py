"""One member's live feed of a session, read from the store a batch at a time and folded
once per worker, and the wake-ups that tell its stream when to read (infra/live/updates.py
implements them)."""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from diceledger.domain.projections.feed import Feed, FeedItem, SharedFeed, Shown
from diceledger.domain.projections.logged import Logged
from diceledger.infra.projections.decoding import logged_all
from diceledger.infra.store.port import EventStore

# Reads a session's latest signed checkpoint note (None before the first).
LatestNote = Callable[[str], str | None]

# How many of a session's newest events a worker keeps for its streams. A stream further
# behind (one opening on a long session, say) reads its own way up from the store once.
HELD_EVENTS = 512


@dataclass(frozen=True, slots=True)
class Noted:
    """A session's latest signed checkpoint note as a read found it (None before the first)."""

    note: str | None


@dataclass(frozen=True, slots=True)
class _Batch:
    """One store read as the tail folded it: its last version and what each viewer sees."""

    last: int
    shown: Shown


class SessionTail:
    """A session as this worker last read it, folded once and shared by all its streams.

    When an append wakes a table's five streams, the first to read asks the store, folds
    the new events once and builds what each sight of them shows (one view of a roll for
    the GM, one for the players...); the others take their items from here. A read is
    fresh for a stream when it began after that stream was woken, since the append that
    woke it was committed before the wake-up went out. A stream opening on the session
    folds the log once on its own (from the newest events held here, or from the store),
    then follows the shared reads. Thread-safe: the streams read from the threadpool.
    """

    def __init__(self, store: EventStore, session_id: str, latest: LatestNote) -> None:
        self._store = store
        self._session_id = session_id
        self._latest = latest
        self._fold = SharedFeed()
        self._viewers: set[str] = set()  # every viewer that followed the session here
        self._held: list[Logged] = []  # the newest events, for streams that open
        self._batches: list[_Batch] = []  # what the newest reads showed, oldest first
        self._since = 0  # the version the oldest batch held follows
        self._read_at = float("-inf")  # when the newest store read began (monotonic)
        self._note: str | None = None
        self._note_read_at = float("-inf")  # the same for the latest checkpoint
        self._lock = threading.Lock()

    def join(self, viewer: str) -> None:
        """Show every read from now on to ``viewer`` too (a stream of theirs opens)."""
        with self._lock:
            self._viewers.add(viewer)

    def opening(self, woken_at: float) -> list[Logged]:
        """Return the whole log up to the newest shared read, fresh as of ``woken_at``: an
        opening stream folds it on its own, then takes its items from ``shown``."""
        with self._lock:
            self._refresh(woken_at)
            newest = self._fold.version
            if not self._held or self._held[0].version == 1:
                return list(self._held)
        return [item for item in self._read(0) if item.version <= newest]

    def shown(self, viewer: str, version: int, woken_at: float) -> list[FeedItem] | None:
        """Return what ``viewer`` (joined) is shown past ``version``, read from the store
        if nothing read since ``woken_at`` (monotonic) holds it; None when the stream is
        further behind than this tail reaches, so that it must open again."""
        with self._lock:
            self._refresh(woken_at)
            if version < self._since:
                return None
            batches = [batch for batch in self._batches if batch.last > version]
        return [item for batch in batches for item in batch.shown[viewer] if item.version > version]

    def held(self, viewer: str, version: int, woken_at: float) -> list[FeedItem] | None:
        """Return what ``shown`` would, if that needs no store read and no wait for one
        (so an event loop may call it); None otherwise."""
        if not self._lock.acquire(blocking=False):
            return None  # another stream is reading: its thread will have the news
        try:
            if self._read_at < woken_at or version < self._since:
                return None
            batches = [batch for batch in self._batches if batch.last > version]
        finally:
            self._lock.release()
        return [item for batch in batches for item in batch.shown[viewer] if item.version > version]

    def held_note(self, woken_at: float) -> Noted | None:
        """Return the latest signed checkpoint if a read that began after ``woken_at`` has
        it and nothing waits (so an event loop may call it); None otherwise."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            return Noted(self._note) if self._note_read_at >= woken_at else None
        finally:
            self._lock.release()

    def latest_note(self, woken_at: float) -> str | None:
        """Return the session's latest signed checkpoint, read again unless a read that
        began after ``woken_at`` (monotonic) already has it."""
        with self._lock:
            if self._note_read_at < woken_at:
                self._note_read_at = time.monotonic()
                self._note = self._latest(self._session_id)
            return self._note

    def _refresh(self, woken_at: float) -> None:
        if self._read_at >= woken_at:
            return
        self._read_at = time.monotonic()
        new = self._read(self._fold.version)
        if not new:
            return
        self._held.extend(new)
        del self._held[:-HELD_EVENTS]
        if self._fold.version == 0 or len(new) > HELD_EVENTS:
            # The whole log (the first read) or a flood: streams open on their own again.
            self._fold.extend(new, ())
            self._since, self._batches = self._fold.version, []
            return
        self._batches.append(_Batch(new[-1].version, self._fold.extend(new, self._viewers)))
        while self._batches[-1].last - self._batches[0].last >= HELD_EVENTS:
            self._since = self._batches.pop(0).last

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
        self._viewer = viewer
        self._version: int | None = None  # None until the stream has opened
        tail.join(viewer)

    @property
    def version(self) -> int:
        """Return the version of the newest event read so far."""
        return self._version or 0

    def read(self, after: int = 0, woken_at: float = float("inf")) -> list[FeedItem]:
        """Read the events appended since the last read, fresh as of ``woken_at``
        (monotonic; by default, now); return those past version ``after``."""
        if self._version is not None:
            shown = self._tail.shown(self._viewer, self._version, woken_at)
            if shown is not None:
                self._version = shown[-1].version if shown else self._version
                return [item for item in shown if item.version > after]
        # Opening, or fallen behind the tail: fold the log alone, up to the shared reads.
        logged = self._tail.opening(woken_at)
        items = Feed(self._viewer).extend(logged, max(after, self._version or 0))
        self._version = logged[-1].version if logged else self.version
        return items

    def held(self, after: int, woken_at: float) -> list[FeedItem] | None:
        """Return what ``read`` would, if the worker's shared reads already hold it fresh
        as of ``woken_at`` and nothing waits: no store read, so an event loop may call it
        (a table's other streams need no thread); None when ``read`` must run."""
        if self._version is None:
            return None
        shown = self._tail.held(self._viewer, self._version, woken_at)
        if shown is None:
            return None
        self._version = shown[-1].version if shown else self._version
        return [item for item in shown if item.version > after]

    def latest_note(self, woken_at: float = float("inf")) -> str | None:
        """Return the session's latest signed checkpoint note, fresh as of ``woken_at``."""
        return self._tail.latest_note(woken_at)

    def held_note(self, woken_at: float) -> Noted | None:
        """Return the latest checkpoint note if held fresh as of ``woken_at`` (no read)."""
        return self._tail.held_note(woken_at)


class Wakeup(Protocol):
    """One stream's wake-up call: set when its session may have news, or when streams end."""

    @property
    def ending(self) -> bool:
        """Tell whether the worker is shutting down, so the stream should end."""
        ...

    @property
    def turn(self) -> AbstractAsyncContextManager[object]:
        """Return the lock the session's streams in this loop read under, one at a time."""
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

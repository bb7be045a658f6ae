"""One member's live feed of a session, read from the store a batch at a time, and the
wake-ups that tell its stream when to read (infra/live.py implements them)."""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from typing import Protocol

from diceledger.domain.projections.feed import Feed, FeedItem
from diceledger.infra.projections.decoding import logged_all
from diceledger.infra.store.port import EventStore


class SessionFeed:
    """Read what a session appended since the last read, as its viewer may see it.

    The events always come from the store, never from whoever announced them, so a lost or
    late announcement delays an event but cannot lose or change it. Not thread-safe: one
    reader at a time (one live stream owns one feed).
    """

    def __init__(self, store: EventStore, session_id: str, viewer: str) -> None:
        self._store = store
        self._session_id = session_id
        self._feed = Feed(viewer)

    @property
    def version(self) -> int:
        """Return the version of the newest event read so far."""
        return self._feed.version

    def read(self, after: int = 0) -> list[FeedItem]:
        """Read the events appended since the last read; return those past version ``after``."""
        records = self._store.read_stream(self._session_id, self._feed.version + 1)
        return self._feed.extend(logged_all(records), after)


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

"""One member's live feed of a session, read from the store a batch at a time."""

from __future__ import annotations

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

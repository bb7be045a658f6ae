"""The event store port: what every backend promises (the contract in docs/storage.md)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

import msgspec

from diceledger.domain.records import NewEvent, RecordedEvent

Clock = Callable[[], datetime]
READ_BATCH_SIZE = 1000


def utc_now() -> datetime:
    """Return the current time as an aware UTC datetime."""
    return datetime.now(UTC)


class EventData(NamedTuple):
    """An event as a fold of the whole log reads it: its place and its data as JSON text.

    What ``read_all`` yields less the meta, the time and the chain link, which a fold of
    events does not read (a rebuild reads a whole log of them). The data stays text so
    that the fold decodes only the fields it reads (infra/codec/stat_records.py).
    """

    position: int
    stream_id: str
    stream_version: int
    event_type: str
    schema_version: int
    data: str | bytes


def event_data(record: RecordedEvent) -> EventData:
    """Return a recorded event as EventData, its data encoded as JSON text."""
    return EventData(
        record.position,
        record.stream_id,
        record.stream_version,
        record.event_type,
        record.schema_version,
        msgspec.json.encode(record.data),
    )


class EventStore(ABC):
    """An append-only log of hash-chained streams with a global position order."""

    @abstractmethod
    def append(
        self, stream_id: str, events: Sequence[NewEvent], expected_version: int
    ) -> list[RecordedEvent]:
        """Append events atomically after ``expected_version``; return them as recorded.

        The records carry the positions, versions, times and hashes the store gave them,
        so a caller never reads back what it has just written. Raises ConcurrencyError when
        the stream's version differs. Re-appending a batch whose event ids are all recorded
        in this stream returns the original records and appends nothing; a batch mixing
        recorded and new ids raises CorruptLogError.
        """

    @abstractmethod
    def read_stream(self, stream_id: str, from_version: int = 1) -> Iterator[RecordedEvent]:
        """Yield a stream's events from ``from_version`` on, in version order, in batches."""

    @abstractmethod
    def read_all(self, after_position: int = 0) -> Iterator[RecordedEvent]:
        """Yield every event after ``after_position`` in the log's read order, in batches.

        Each committed event comes exactly once to a reader that resumes after the
        position of the last event it read, and each stream's events come in version
        order. The order is position order where transactions commit one at a time
        (memory, SQLite); on PostgreSQL it is by writing transaction, then position
        (docs/storage.md, "Position order under concurrent writers").
        """

    def read_all_data(self, after_position: int = 0) -> Iterator[EventData]:
        """Yield what ``read_all`` yields, in the same order, as EventData."""
        return map(event_data, self.read_all(after_position))

    @abstractmethod
    def head_position(self) -> int:
        """Return the highest recorded position (0 when the store is empty)."""

    def last_position(self) -> int:
        """Return the position of the event ``read_all`` yields last (0 when empty).

        That is the highest position where the log is read in position order; a backend
        that reads in another order (PostgreSQL) says which.
        """
        return self.head_position()

    @abstractmethod
    def current_version(self, stream_id: str) -> int:
        """Return a stream's version (0 when it has no events)."""

    @abstractmethod
    def stream_ids(self) -> list[str]:
        """Return every stream id in the order of the streams' first events."""

    @abstractmethod
    def import_recorded(self, records: Iterable[RecordedEvent]) -> int:
        """Append events recorded elsewhere, keeping their chain; return how many were new.

        Each record must link to its stream's head (version and prev_hash) and carry the
        hash of its contents. Events already present with the same version and hash are
        skipped. All or nothing: the first bad record raises CorruptLogError naming it and
        nothing from the call is kept.
        """

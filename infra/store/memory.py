"""The in-memory event store: the same contract as the database, for unit tests."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from diceledger.domain.errors import ConcurrencyError
from diceledger.domain.hashchain import ChainHead, plain_json_copy
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.infra.store.importing import plan_import
from diceledger.infra.store.port import READ_BATCH_SIZE, Clock, EventStore, utc_now
from diceledger.infra.store.sealing import check_batch, resolve_retry, seal, with_positions


class InMemoryEventStore(EventStore):
    """Keep every event in a list; a lock makes each call atomic across threads."""

    def __init__(self, clock: Clock = utc_now, batch_size: int = READ_BATCH_SIZE) -> None:
        self._clock = clock
        self._batch_size = batch_size
        self._lock = threading.RLock()
        self._log: list[RecordedEvent] = []
        self._streams: dict[str, list[RecordedEvent]] = {}
        self._by_id: dict[str, RecordedEvent] = {}

    def append(
        self, stream_id: str, events: Sequence[NewEvent], expected_version: int
    ) -> list[RecordedEvent]:
        check_batch(stream_id, events)
        if not events:
            return []
        with self._lock:
            recorded = {
                event.event_id: (
                    self._by_id[event.event_id].stream_id,
                    self._by_id[event.event_id].position,
                )
                for event in events
                if event.event_id in self._by_id
            }
            if resolve_retry(stream_id, events, recorded) is not None:
                return [self._by_id[event.event_id] for event in events]
            head = self._head(stream_id)
            if head.version != expected_version:
                raise ConcurrencyError(
                    f"stream {stream_id} is at version {head.version}, expected {expected_version}"
                )
            sealed = seal(stream_id, events, head, self._clock())
            first = len(self._log) + 1
            positions = list(range(first, first + len(sealed)))
            recorded_events = with_positions(sealed, positions)
            self._keep(recorded_events)
            return recorded_events

    def read_stream(self, stream_id: str, from_version: int = 1) -> Iterator[RecordedEvent]:
        start = max(from_version, 1) - 1
        while True:
            with self._lock:
                batch = self._streams.get(stream_id, [])[start : start + self._batch_size]
            yield from batch
            if len(batch) < self._batch_size:
                return
            start += len(batch)

    def read_all(self, after_position: int = 0) -> Iterator[RecordedEvent]:
        # Positions here are 1..n with no gaps, so a position is also a list index.
        start = max(after_position, 0)
        while True:
            with self._lock:
                batch = self._log[start : start + self._batch_size]
            yield from batch
            if len(batch) < self._batch_size:
                return
            start += len(batch)

    def head_position(self) -> int:
        with self._lock:
            return len(self._log)

    def current_version(self, stream_id: str) -> int:
        return self._head(stream_id).version

    def stream_ids(self) -> list[str]:
        with self._lock:
            return list(self._streams)

    def import_recorded(self, records: Iterable[RecordedEvent]) -> int:
        with self._lock:
            mark = len(self._log)
            try:
                for chunk in plan_import(records, self._find_existing, self._head):
                    first = len(self._log) + 1
                    self._keep([replace(r, position=first + i) for i, r in enumerate(chunk)])
            except BaseException:
                self._truncate(mark)
                raise
            return len(self._log) - mark

    def _find_existing(self, event_ids: list[str]) -> dict[str, tuple[str, int, str]]:
        found = (self._by_id.get(event_id) for event_id in event_ids)
        return {r.event_id: (r.stream_id, r.stream_version, r.hash) for r in found if r}

    def _head(self, stream_id: str) -> ChainHead:
        with self._lock:
            stream = self._streams.get(stream_id)
            if not stream:
                return ChainHead()
            return ChainHead(stream[-1].stream_version, stream[-1].hash)

    def _keep(self, records: list[RecordedEvent]) -> None:
        # Deep copies, so a caller that later mutates its data cannot rewrite history.
        records = [
            replace(r, data=plain_json_copy(r.data), meta=plain_json_copy(r.meta)) for r in records
        ]
        for record in records:
            self._log.append(record)
            self._streams.setdefault(record.stream_id, []).append(record)
            self._by_id[record.event_id] = record

    def _truncate(self, length: int) -> None:
        for record in self._log[length:]:
            del self._by_id[record.event_id]
            stream = self._streams[record.stream_id]
            stream.pop()
            if not stream:
                del self._streams[record.stream_id]
        del self._log[length:]

"""Fill a store with a million chained events in minutes: the scaling workload's fast path.

The store's own ``append`` spends most of its time in ``seal`` (about 0.3 ms per event
here, most of it re-checking that the data is JSON it can hash), so a million events
would take the best part of ten minutes on this machine. This path builds the same
records with the same hash formula as ``domain.hashchain.event_hash`` (SHA-256 of 0x00
and the sorted, compact JSON of the record), skipping only the value checks that our
generated data passes by construction, and inserts them with the store's own table and
row mapper. ``check_chains`` proves the result by verifying sessions read back through
the store with ``domain.hashchain.verify_chain``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy.engine import Engine

from diceledger.domain.hashchain import LEAF_PREFIX, ChainHead, format_timestamp, verify_chain
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events
from diceledger.infra.store.sql import SqlEventStore


def chained(stream_id: str, event: NewEvent, head: ChainHead, moment: datetime) -> RecordedEvent:
    """Return the record that follows ``head``, hashed as domain.hashchain.event_hash does."""
    version = head.version + 1
    data, meta = dict(event.data), dict(event.meta)
    record = {
        "event_id": event.event_id,
        "stream_id": stream_id,
        "stream_version": version,
        "event_type": event.event_type,
        "schema_version": event.schema_version,
        "data": data,
        "meta": meta,
        "recorded_at": format_timestamp(moment),
        "prev_hash": head.hash,
    }
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(LEAF_PREFIX + text.encode("utf-8")).hexdigest()
    return RecordedEvent(
        0,
        event.event_id,
        stream_id,
        version,
        event.event_type,
        event.schema_version,
        data,
        meta,
        moment,
        head.hash,
        digest,
    )  # fmt: skip


def chained_records(stream_id: str, batch: Sequence[NewEvent]) -> list[RecordedEvent]:
    """Return a new stream's records, versions 1..n, each hashed onto the one before."""
    moment = datetime.now(UTC)
    records, head = [], ChainHead()
    for event in batch:
        record = chained(stream_id, event, head, moment)
        records.append(record)
        head = ChainHead(record.stream_version, record.hash)
    return records


def insert_streams(engine: Engine, streams: dict[str, Sequence[NewEvent]]) -> None:
    """Insert whole new streams in one transaction through the store's table and mapper."""
    rows = [
        to_row(record)
        for stream_id, batch in streams.items()
        for record in chained_records(stream_id, batch)
    ]
    with engine.begin() as connection:
        connection.execute(events.insert(), rows)


def check_chains(store: SqlEventStore, stream_ids: Sequence[str]) -> None:
    """Read streams back through the store and fail loudly if a chain does not verify."""
    for stream_id in stream_ids:
        problem = verify_chain(store.read_stream(stream_id))
        if problem is not None:
            raise AssertionError(f"bulk-filled stream {stream_id} does not verify: {problem}")

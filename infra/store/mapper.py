"""The only code that turns recorded events into rows and rows back into recorded events."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from diceledger.domain.records import RecordedEvent


def to_row(record: RecordedEvent) -> dict[str, Any]:
    """Return the column values of a record; the database assigns the position."""
    return {
        "event_id": record.event_id,
        "stream_id": record.stream_id,
        "stream_version": record.stream_version,
        "event_type": record.event_type,
        "schema_version": record.schema_version,
        "data": record.data,
        "meta": record.meta,
        # SQLite keeps no zone, so every backend is handed UTC.
        "recorded_at": record.recorded_at.astimezone(UTC),
        "prev_hash": record.prev_hash,
        "hash": record.hash,
    }


def from_row(row: Mapping[Any, Any]) -> RecordedEvent:
    """Rebuild a recorded event from a row of the events table."""
    return RecordedEvent(
        position=row["position"],
        event_id=row["event_id"],
        stream_id=row["stream_id"],
        stream_version=row["stream_version"],
        event_type=row["event_type"],
        schema_version=row["schema_version"],
        data=row["data"],
        meta=row["meta"],
        recorded_at=_as_utc(row["recorded_at"]),
        prev_hash=row["prev_hash"],
        hash=row["hash"],
    )


def _as_utc(moment: datetime) -> datetime:
    # SQLite returns the naive UTC time it was given; PostgreSQL an aware one in the
    # session's zone.
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)

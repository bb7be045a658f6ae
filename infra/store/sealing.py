"""Turn a batch of new events into chained records; shared by every backend."""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from diceledger.domain.errors import InvalidInputError
from diceledger.domain.hashchain import (
    ChainHead,
    canonical_text,
    event_hash,
    event_hash_of_texts,
    format_timestamp,
    plain_safe_int,
)
from diceledger.domain.records import NewEvent, RecordedEvent

# The widths the SQL schema declares. PostgreSQL enforces them and SQLite does not, so
# every backend checks them here and refuses alike, before anything is written.
STREAM_ID_LENGTH = 200
EVENT_TYPE_LENGTH = 100
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def check_batch(stream_id: str, events: Sequence[NewEvent]) -> None:
    """Refuse a batch with a bad stream id or event type, malformed or repeated event ids."""
    seen: set[str] = set()
    for event in events:
        if seen:  # the stream id passed with the first event
            check_event_id(event.event_id)
            _check_text("event type", event.event_type, EVENT_TYPE_LENGTH)
        else:
            check_names(event.event_id, stream_id, event.event_type)
        if event.event_id in seen:
            raise InvalidInputError(f"event id {event.event_id} appears twice in one batch")
        seen.add(event.event_id)
    if not events:
        _check_text("stream id", stream_id, STREAM_ID_LENGTH)


def check_names(event_id: str, stream_id: str, event_type: str) -> None:
    """Refuse an event whose id, stream id or type the schema cannot hold as given."""
    check_event_id(event_id)
    _check_text("stream id", stream_id, STREAM_ID_LENGTH)
    _check_text("event type", event_type, EVENT_TYPE_LENGTH)


def _check_text(what: str, value: str, length: int) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"{what} must be a non-empty string")
    if len(value) > length:
        raise InvalidInputError(f"{what} is longer than {length} characters")
    # PostgreSQL text cannot hold NUL; no name needs any control character.
    if not value.isprintable():
        raise InvalidInputError(f"{what} {value!r} holds a control character")


def check_event_id(event_id: str) -> None:
    """Refuse an event id that is not a UUID in its canonical lowercase text form."""
    if type(event_id) is str and _CANONICAL_UUID.fullmatch(event_id):
        return  # exactly the texts str(uuid.UUID(text)) gives back unchanged
    try:
        canonical = str(uuid.UUID(event_id))
    except (ValueError, TypeError, AttributeError):
        raise InvalidInputError(f"event id {event_id!r} is not a UUID") from None
    if canonical != event_id:
        raise InvalidInputError(f"event id {event_id!r} is not lowercase hyphenated UUID text")


def resolve_retry(
    stream_id: str, events: Sequence[NewEvent], recorded: Mapping[str, tuple[str, int]]
) -> list[int] | None:
    """Return original positions when the whole batch is already recorded, else None.

    ``recorded`` maps each batch event id found in the store to (stream_id, position).
    """
    if not recorded:
        return None
    for event_id, (other_stream, _) in recorded.items():
        if other_stream != stream_id:
            raise InvalidInputError(f"event id {event_id} is already recorded in another stream")
    if len(recorded) != len(events):
        raise InvalidInputError("batch mixes already recorded and new event ids")
    return [recorded[event.event_id][1] for event in events]


@dataclass(frozen=True, slots=True)
class SealedEvent:
    """An event given its version, time and hash, not yet its position.

    ``data_text`` and ``meta_text`` are the canonical texts its hash covers.
    """

    event_id: str
    stream_id: str
    stream_version: int
    event_type: str
    schema_version: int
    data: dict[str, Any]
    meta: dict[str, Any]
    recorded_at: datetime
    prev_hash: str
    hash: str
    data_text: str
    meta_text: str

    def at(self, position: int) -> RecordedEvent:
        """Return the record this event becomes at ``position``."""
        return RecordedEvent(
            position,
            self.event_id,
            self.stream_id,
            self.stream_version,
            self.event_type,
            self.schema_version,
            self.data,
            self.meta,
            self.recorded_at,
            self.prev_hash,
            self.hash,
        )


def seal(
    stream_id: str, events: Sequence[NewEvent], head: ChainHead, recorded_at: datetime
) -> list[RecordedEvent]:
    """Give each event its version, time and hash, chained after ``head``; position is 0."""
    return [sealed.at(0) for sealed in seal_texts(stream_id, events, head, recorded_at)]


def seal_texts(
    stream_id: str, events: Sequence[NewEvent], head: ChainHead, recorded_at: datetime
) -> list[SealedEvent]:
    """Seal as ``seal`` does, keeping the canonical text of each data and meta."""
    moment = _utc_microseconds(recorded_at)
    moment_text = format_timestamp(moment)
    sealed: list[SealedEvent] = []
    prev_hash, version = head.hash, head.version
    for event in events:
        version += 1
        # canonical_text refuses what canonical JSON cannot hold, before anything is stored.
        data, meta = dict(event.data), dict(event.meta)
        if plain_safe_int(event.schema_version):
            data_text = canonical_text(data, "$.data")
            meta_text = canonical_text(meta, "$.meta")
            digest = event_hash_of_texts(
                event_id=event.event_id,
                stream_id=stream_id,
                stream_version=version,
                event_type=event.event_type,
                schema_version=event.schema_version,
                data_text=data_text,
                meta_text=meta_text,
                recorded_at_text=moment_text,
                prev_hash=prev_hash,
            )
        else:
            # A schema version of another type: the reference path judges and hashes it.
            digest = event_hash(
                event_id=event.event_id,
                stream_id=stream_id,
                stream_version=version,
                event_type=event.event_type,
                schema_version=event.schema_version,
                data=data,
                meta=meta,
                recorded_at=moment,
                prev_hash=prev_hash,
            )
            data_text, meta_text = canonical_text(data), canonical_text(meta)
        sealed.append(
            SealedEvent(
                event.event_id,
                stream_id,
                version,
                event.event_type,
                event.schema_version,
                data,
                meta,
                moment,
                prev_hash,
                digest,
                data_text,
                meta_text,
            )
        )
        prev_hash = digest
    return sealed


def with_positions(
    records: Sequence[RecordedEvent], positions: Sequence[int]
) -> list[RecordedEvent]:
    """Return copies of sealed records carrying the positions the store gave them."""
    return [replace(record, position=pos) for record, pos in zip(records, positions, strict=True)]


def _utc_microseconds(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidInputError("the store's clock must return timezone-aware times")
    return moment.astimezone(UTC)

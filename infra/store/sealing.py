"""Turn a batch of new events into chained records; shared by every backend."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from diceledger.domain.errors import InvalidInputError
from diceledger.domain.hashchain import ChainHead, chain_object, record_object_hash
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


def seal(
    stream_id: str, events: Sequence[NewEvent], head: ChainHead, recorded_at: datetime
) -> list[RecordedEvent]:
    """Give each event its version, time and hash, chained after ``head``; position is 0.

    Hashing refuses what canonical JSON cannot hold, before anything is stored.
    """
    moment = _utc_microseconds(recorded_at)
    sealed: list[RecordedEvent] = []
    prev_hash, version = head.hash, head.version
    for event in events:
        version += 1
        data, meta = dict(event.data), dict(event.meta)
        digest = record_object_hash(
            chain_object(
                event.event_id,
                stream_id,
                version,
                event.event_type,
                event.schema_version,
                data,
                meta,
                moment,
                prev_hash,
            )
        )
        sealed.append(
            RecordedEvent(
                0,
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
            )
        )
        prev_hash = digest
    return sealed


def with_positions(
    records: Sequence[RecordedEvent], positions: Iterable[int]
) -> list[RecordedEvent]:
    """Return copies of sealed records carrying the positions the store gave them."""
    return [_with(r, pos, r.hash) for r, pos in zip(records, positions, strict=True)]


def _with(record: RecordedEvent, position: int, digest: str) -> RecordedEvent:
    # Built positionally: dataclasses.replace costs more than the hash on a hot append.
    return RecordedEvent(
        position,
        record.event_id,
        record.stream_id,
        record.stream_version,
        record.event_type,
        record.schema_version,
        record.data,
        record.meta,
        record.recorded_at,
        record.prev_hash,
        digest,
    )


def _utc_microseconds(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidInputError("the store's clock must return timezone-aware times")
    return moment.astimezone(UTC)

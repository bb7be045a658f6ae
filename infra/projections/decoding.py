"""Recorded events as the projections read them: decoded, with position, time and actor."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from diceledger.domain.projections.logged import Logged
from diceledger.domain.records import RecordedEvent
from diceledger.infra.codec.events import from_record


def logged(record: RecordedEvent) -> Logged:
    """Decode one recorded event (upcasting it) for a projection."""
    actor = record.meta.get("actor")
    return Logged(
        record.position,
        record.stream_id,
        record.stream_version,
        record.recorded_at,
        actor if isinstance(actor, str) else "",
        from_record(record),
    )


def logged_all(records: Iterable[RecordedEvent]) -> Iterator[Logged]:
    """Decode records one by one, keeping the caller's batching."""
    for record in records:
        yield logged(record)

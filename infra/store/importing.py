"""Check events recorded elsewhere before a backend takes them in (export -> import)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import UTC
from itertools import islice

from diceledger.domain.errors import CorruptLogError, InvalidInputError
from diceledger.domain.hashchain import ChainHead, ChainVerifier
from diceledger.domain.records import RecordedEvent
from diceledger.infra.store.sealing import check_names

IMPORT_CHUNK_SIZE = 500

# event_id -> (stream_id, stream_version, hash) of the copy already in the store
FindExisting = Callable[[list[str]], Mapping[str, tuple[str, int, str]]]
LoadHead = Callable[[str], ChainHead]


def plan_import(
    records: Iterable[RecordedEvent], find_existing: FindExisting, load_head: LoadHead
) -> Iterator[list[RecordedEvent]]:
    """Yield chunks of records to append, skipping ones already present; raise on a bad one.

    The caller must append each chunk before asking for the next, so that later chunks see
    earlier ones as present.
    """
    verifier = ChainVerifier(load_head=load_head)
    source = iter(records)
    seen: set[str] = set()
    while chunk := list(islice(source, IMPORT_CHUNK_SIZE)):
        existing = find_existing([record.event_id for record in chunk])
        fresh: list[RecordedEvent] = []
        for record in chunk:
            try:
                check_names(record.event_id, record.stream_id, record.event_type)
            except InvalidInputError as error:
                raise CorruptLogError(
                    f"import refused at position {record.position}: {error}"
                ) from None
            if record.event_id in seen:
                raise CorruptLogError(
                    f"import refused at position {record.position}: event id "
                    f"{record.event_id} appears twice in what is imported"
                )
            seen.add(record.event_id)
            present = existing.get(record.event_id)
            if present is not None:
                _require_identical(record, present)
                continue
            problem = verifier.check(record)
            if problem is not None:
                raise CorruptLogError(f"import refused at {problem}")
            # Kept in UTC like every appended event (the hash does not depend on the zone).
            fresh.append(replace(record, recorded_at=record.recorded_at.astimezone(UTC)))
        if fresh:
            yield fresh


def _require_identical(record: RecordedEvent, present: tuple[str, int, str]) -> None:
    if present != (record.stream_id, record.stream_version, record.hash):
        raise CorruptLogError(
            f"import refused at position {record.position}: event id {record.event_id} "
            "is already recorded with different contents"
        )

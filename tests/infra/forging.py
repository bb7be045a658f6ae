"""How a careful forger edits a log: change events, then rebuild the hash chain."""

from __future__ import annotations

from dataclasses import replace

from diceledger.domain.hashchain import GENESIS_HASH, record_hash
from diceledger.domain.records import RecordedEvent


def rechain(records: list[RecordedEvent], start: int = 0) -> list[RecordedEvent]:
    """Recompute versions, links and hashes from ``start`` on, as a careful forger would."""
    out = records[:start]
    prev = out[-1].hash if out else GENESIS_HASH
    for offset, record in enumerate(records[start:], start=start):
        record = replace(record, stream_version=offset + 1, prev_hash=prev, hash="")
        record = replace(record, hash=record_hash(record))
        out.append(record)
        prev = record.hash
    return out

"""The envelopes events travel in: what a service appends and what the store gives back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event a service asks the store to append; the store adds version, time and hash.

    ``data`` and ``meta`` hold JSON values only: str, int, bool, None, lists and objects
    with str keys (no floats, see ``domain.hashchain.canonical_json``).
    """

    event_id: str
    event_type: str
    data: Mapping[str, Any]
    schema_version: int = 1
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """An event as the store recorded it, with its place in the log and its chain link.

    ``position`` is local to one store; everything else survives export and import.
    """

    position: int
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


@dataclass(frozen=True, slots=True)
class SealedEvent:
    """An event of a hidden blind roll as a player's export carries it: a link, no content.

    It says where the event stands in the chain (``position``, ``stream_version``), which
    hidden roll it belongs to (``roll_id``, which the player's timeline already shows), and
    the hash the next event links through; not its type, time, dice or totals
    (docs/verification.md, "Sealed lines").
    """

    position: int
    stream_id: str
    stream_version: int
    roll_id: int
    prev_hash: str
    hash: str


# One line of an export: an event in full, or sealed.
ExportedEvent = RecordedEvent | SealedEvent

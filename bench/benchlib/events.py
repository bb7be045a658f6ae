"""Synthetic roll events of about 300 bytes, the size the W3 and scaling workloads use."""

from __future__ import annotations

import json
import uuid
from typing import Any

from diceledger.domain.records import NewEvent

EVENT_TYPE = "DiceRolled"
TARGET_BYTES = 300


def dice_rolled_data(number: int) -> dict[str, Any]:
    """Return the data of a DiceRolled-like event; its JSON is about 300 bytes."""
    faces = [(number * 7 + i * 3) % 20 + 1 for i in range(3)]
    return {
        "roll_id": f"roll-{number:08d}",
        "nonce": number,
        "epoch": 1,
        "expression": "1d20+5",
        "dice": [
            {"die": i, "sides": 20, "face": face, "block": 0, "word": i, "why": "initial"}
            for i, face in enumerate(faces)
        ],
        "actor": "player-one",
    }


def new_event(number: int) -> NewEvent:
    """Return one new event with a fresh id and about 300 bytes of data."""
    return NewEvent(
        event_id=str(uuid.uuid4()),
        event_type=EVENT_TYPE,
        data=dice_rolled_data(number),
        meta={"actor": "player-one"},
    )


def new_events(count: int, start: int = 0) -> list[NewEvent]:
    """Return ``count`` new events numbered from ``start``."""
    return [new_event(number) for number in range(start, start + count)]


def data_size(number: int = 12345) -> int:
    """Return the size in bytes of one event's data as compact JSON."""
    return len(json.dumps(dice_rolled_data(number), separators=(",", ":")))

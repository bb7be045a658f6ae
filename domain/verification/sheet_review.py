"""What a dispute review shows of the sheets a roll read: each value and the event behind it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from diceledger.domain.json import JsonValue
from diceledger.domain.session import events as ev
from diceledger.domain.session.state import SessionState


@dataclass(frozen=True, slots=True)
class Setter:
    """The event at a stream version that set a sheet value: where, which type, by whom."""

    position: int
    event_type: str
    by: str


def sheet_rows(
    request: ev.RollRequested, before: SessionState, setters: Mapping[int, Setter]
) -> list[JsonValue]:
    """Return, for every value the request read, what it recorded and what the sheet said.

    ``before`` is the session as replayed just before the request: the sheet at that
    moment. ``matches`` tells whether the recorded value is the sheet's, set by that event.
    """
    rows: list[JsonValue] = []
    for ref in request.references:
        character = before.characters.get(ref.character)
        entry = character.value_of(ref.name) if character else None
        setter = setters.get(ref.set_at)
        rows.append(
            {
                "use": ref.use,
                "side": ref.side,
                "character": ref.character,
                "name": ref.name,
                "recorded": ref.value,
                "on_sheet": entry.value if entry else None,
                "set_at": ref.set_at,
                "set_by": setter.by if setter else None,
                "set_event": setter.event_type if setter else None,
                "position": setter.position if setter else None,
                "matches": entry is not None
                and (entry.value, entry.set_at) == (ref.value, ref.set_at),
            }
        )
    return rows

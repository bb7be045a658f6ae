"""The human text of sheet events, and of the sheet values a roll read (replay, review)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from diceledger.domain.session import events as ev
from diceledger.domain.session.sheets import GM_SHEETS


def describe_sheet(event: ev.SheetEvent) -> str:
    """Return one line for a sheet event, naming who made the change."""
    match event:
        case ev.SheetRightsSet():
            who = "the GMs only" if event.sheets == GM_SHEETS else "their players and the GMs"
            return f"character sheets now kept by {who} (set by {event.by})"
        case ev.CharacterCreated():
            if event.owner is None:
                return f"NPC {event.character} created by {event.by}"
            return f"character {event.character} of {event.owner} created by {event.by}"
        case ev.AttributeSet():
            label = f" ({event.label})" if event.label else ""
            return f"{event.character} {event.name}{label} set to {event.value:+d} by {event.by}"
        case ev.QualitySet():
            return f"{event.character} {event.name} set to {event.value:+d} by {event.by}"
        case ev.RollSaved():
            return (
                f"{event.character} saved the roll '{event.name}': {event.kind} "
                f"{event.expression} (by {event.by})"
            )
        case ev.CharacterRetired():
            return f"{event.character} retired by {event.by}"
        case _:
            assert_never(event)


def sheet_value(value: ev.SheetValue) -> str:
    """Return one value a roll read: whose, which, how much, and the version that set it."""
    where = "DC: " if value.use == "dc" else ""
    return f"{where}{value.character} @{value.name} {value.value:+d} (set at v{value.set_at})"


def sheet_values(values: Iterable[ev.SheetValue]) -> str:
    """Return the values a roll read, in the order it used them."""
    return "; ".join(sheet_value(value) for value in values)

"""Read a request's sheet references (R4, R6): each side's ``@name`` from its own character.

A side's ``@STR`` reads the sheet of the character that side rolls with (a member's own,
or the NPC of that name) as it stands when the request is decided; a DC by reference reads
the save's origin's. The request records the values written out, the values read (with the
version that set each) and the expressions as typed, so verification reads them again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from diceledger.domain.dice.notation import tokenize
from diceledger.domain.errors import RollError
from diceledger.domain.session import events as ev
from diceledger.domain.session.sheets import (
    has_references,
    read_value,
    without_references,
    written_out,
)
from diceledger.domain.session.state import SessionState


@dataclass(frozen=True, slots=True)
class Resolved:
    """The sides with their references written out, what was read, and what was typed."""

    sides: tuple[ev.CheckSide, ...]
    references: tuple[ev.SheetValue, ...]
    asked: tuple[str, ...]


def resolve_sides(state: SessionState, sides: tuple[ev.CheckSide, ...]) -> Resolved:
    """Write out every side's ``@name`` from that side's own character."""
    if not any(has_references(side.expression) for side in sides):
        return Resolved(sides, (), ())
    written: list[ev.CheckSide] = []
    references: list[ev.SheetValue] = []
    for index, side in enumerate(sides):
        text, readings = written_out(side.expression, state.character_of(side.name), side.name)
        written.append(replace(side, expression=text))
        references += [
            ev.SheetValue("roll", index, r.character, r.name, r.value, r.set_at) for r in readings
        ]
    return Resolved(tuple(written), tuple(references), tuple(s.expression for s in sides))


def dc_value(state: SessionState, origin: str | None, name: str) -> ev.SheetValue:
    """Return the MOD a DC by reference takes from the origin's character (R4)."""
    if not origin:
        raise RollError(f"a DC of @{name} needs its origin: name the character it is against")
    character = state.characters.get(origin)
    if character is not None and character.retired:
        character = None
    reading = read_value(character, name, origin)
    return ev.SheetValue("dc", 0, reading.character, name, reading.value, reading.set_at)


def refuse_opponent_numbers(state: SessionState, opponent: ev.CheckSide) -> None:
    """Refuse a number the requester chose for a player's side that has a sheet (R6).

    Each side's MODs are its own: the requester of an opposed check names the other side's
    attribute (``1d20+@STR``), never its value. An NPC's side is the GMs' to state.
    """
    if opponent.name not in state.members or state.character_of(opponent.name) is None:
        return
    for token in tokenize(without_references(opponent.expression)):
        if token[0] == "number":
            raise RollError(
                f"name {opponent.name}'s MODs from their sheet (1d20+@STR), "
                "not as numbers: each side's MODs are its own"
            )

"""Read a request's sheet references (R4, R6): each side's ``@name`` from its own character,
a DC from its origin's sheet, and a saved roll from the roller's.

A side's ``@STR`` reads the sheet of the character that side rolls with (a member's own,
or the NPC of that name) as it stands when the request is decided; a DC by reference reads
the save's origin's. The request records the values written out, the values read (with the
version that set each) and the expressions as typed, so verification reads them again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from diceledger.domain.dice.notation import Token, tokenize
from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import RollError
from diceledger.domain.session import commands as cmd
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


def refuse_choices_for_another_member(
    state: SessionState, opponent: ev.CheckSide, actor: str
) -> None:
    """Refuse what the requester chose for another member's side (R6).

    Each side's MODs, advantage, ease and dice are its own: the requester of an opposed
    check names the other side's attribute (``1d20+@STR``), never its value, and a member
    with no sheet rolls their dice as they are. The circumstances that give the other
    member Advantage, Disadvantage, Eased or Hindered, or other dice than the check's d20
    (R6: "1d20 + its MODs"), are a GM's to state, not the other side's. An NPC's side is
    the GMs' to state. Requests of the second edition of the rules on are held to this.
    """
    if opponent.name not in state.members or opponent.name in state.npc_names:
        return
    tokens = list(tokenize(without_references(opponent.expression)))
    for token in tokens:
        if token[0] == "number":
            raise RollError(
                f"name {opponent.name}'s MODs from their sheet (1d20+@STR), "
                "not as numbers: each side's MODs are its own"
            )
    member = state.members.get(actor)
    if member is not None and member.is_gm:
        return
    if opponent.advantage or opponent.disadvantage or opponent.eased or opponent.hindered:
        raise RollError(
            f"only a GM may give {opponent.name}'s side Advantage, Disadvantage, Eased or "
            "Hindered: each side's are its own"
        )
    if not _one_d20_and_references(tokens):
        raise RollError(
            f"{opponent.name}'s side rolls one d20 and their MODs (1d20+@STR): only a GM "
            "may give them other dice or another sum"
        )


def _one_d20_and_references(tokens: list[Token]) -> bool:
    """Whether an expression's tokens, its references left out, are one exploding d20
    joined by ``+`` to nothing but those references (labels aside)."""
    d20s = 0
    for kind, _, _, count, sides, exploding in tokens:
        if kind == "dice" and (count, sides, exploding) == (1, 20, True):
            d20s += 1
        elif kind not in ("+", "label", "end"):
            return False
    return d20s == 1


def from_saved(state: SessionState, command: cmd.RequestRoll, owner: str) -> cmd.RequestRoll:
    """Return the request a saved roll stands for: its kind, expression and name as label.

    The request records what was rolled, not the saved name's lookup, so it verifies
    as any request would.
    """
    name = command.saved
    if name is None:
        return command
    if command.expression:
        raise RollError("a saved roll brings its own expression; give one or the other")
    character = state.character_of(owner)
    saved = character.saved.get(name) if character else None
    if character is None or saved is None:
        whose = character.name if character else owner
        raise RollError(f"{whose} has no saved roll {name!r}")
    kind = RollKind(saved.kind)
    if kind is RollKind.CHECK and command.target is None:
        raise RollError(f"the saved roll {name!r} is a check: it needs a target or a DC")
    if kind is not RollKind.CHECK and command.target is not None:
        raise RollError(f"the saved roll {name!r} is a {kind} roll, which takes no target")
    return replace(
        command, kind=kind, expression=saved.expression, label=command.label or name, saved=None
    )


def dc_by_reference(
    state: SessionState, command: cmd.RequestRoll
) -> tuple[cmd.RequestRoll, tuple[ev.SheetValue, ...]]:
    """Return the request with its DC by reference made a DC from the origin's MOD (R4)."""
    if command.dc_reference is None:
        return command, ()
    value = dc_value(state, command.against, command.dc_reference)
    target = Target.dc(value.value, command.dc_reference)
    return replace(command, target=target, dc_reference=None), (value,)

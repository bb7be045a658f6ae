"""Decide the sheet commands: who keeps the sheets, characters, their values and saved rolls.

A player creates and keeps their own character (one at a time); a GM may create one for
any member, create NPCs, and change any sheet. ``sheets: gm`` leaves a player character's
values to the GMs alone. Every refusal is one line and appends nothing.
"""

from __future__ import annotations

import re
from typing import assert_never

from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import RollKind
from diceledger.domain.errors import (
    CommandRefusedError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
)
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.guards import (
    refuse_lookalike,
    require_gm,
    require_member,
    require_open,
)
from diceledger.domain.session.sheets import (
    ATTRIBUTE_PATTERN,
    GM_SHEETS,
    MAX_SHEET_VALUE,
    QUALITY_PATTERN,
    SAVED_KINDS,
    SAVED_ROLL_PATTERN,
    SHEET_RIGHTS,
    Character,
    find_character,
    without_references,
)
from diceledger.domain.session.state import SessionState, evolve
from diceledger.domain.session.text import (
    MAX_LABEL,
    check_expression,
    check_name,
    check_optional,
    normalize_name,
)


def set_sheet_rights(
    state: SessionState, command: cmd.SetSheetRights, ctx: Context
) -> list[ev.Event]:
    """Choose who may change a player character's values (a GM's setting)."""
    require_open(state)
    require_gm(state, ctx.actor, "choose who keeps the sheets")
    if command.sheets not in SHEET_RIGHTS:
        raise InvalidInputError(f"sheets are kept by 'player' or 'gm', not {command.sheets!r}")
    return [ev.SheetRightsSet(command.sheets, ctx.actor)]


def create_character(
    state: SessionState, command: cmd.CreateCharacter, ctx: Context
) -> list[ev.Event]:
    """Create a player's character (their own, or any member's by a GM) or a GM's NPC."""
    require_open(state)
    require_member(state, ctx.actor)
    return [_created(state, command, ctx, carried=False)]


def carry_sheets(
    state: SessionState, carried: tuple[cmd.CarriedCommand, ...], ctx: Context
) -> list[ev.Event]:
    """Decide the sheets a campaign's session starts with, on ``state`` just started.

    Each is decided as the GM's own command, except that a player character's owner need
    not have joined yet: it is carried to their name, and played once they join.
    """
    events: list[ev.Event] = []
    for command in carried:
        match command:
            case cmd.CreateCharacter():
                decided: list[ev.Event] = [_created(state, command, ctx, carried=True)]
            case cmd.SetAttribute():
                decided = set_attribute(state, command, ctx)
            case cmd.SetQuality():
                decided = set_quality(state, command, ctx)
            case cmd.SaveRoll():
                decided = save_roll(state, command, ctx)
            case _:
                assert_never(command)
        for event in decided:
            evolve(state, state.version + 1, event)
        events += decided
    return events


def _created(
    state: SessionState, command: cmd.CreateCharacter, ctx: Context, carried: bool
) -> ev.CharacterCreated:
    name = normalize_name(command.character)
    check_name(name, "a character's name")
    owner = command.owner
    if owner is None:
        require_gm(state, ctx.actor, "create an NPC")
        if name in state.members:
            raise CommandRefusedError(f"{name} is a member of session '{state.session_id}'")
        # An NPC's name is the name its side rolls under: no member's may be mistaken for it.
        refuse_lookalike(state, name, ctx)
    else:
        if owner != ctx.actor:
            require_gm(state, ctx.actor, "create a character for someone else")
        if carried:
            check_name(owner, "a character's owner")
        elif owner not in state.members:
            raise NotFoundError(f"{owner} is not in session '{state.session_id}'")
        # Looked up by owner, not through character_of: a carried owner may not have joined.
        owned = (c for c in state.characters.values() if c.owner == owner and not c.retired)
        current = next(owned, None)
        if current is not None:
            raise CommandRefusedError(
                f"{owner} already plays {current.name}; retire that character first"
            )
    same = find_character(state.characters, name, ctx.lookalike)
    if same is not None:
        raise CommandRefusedError(
            f"session '{state.session_id}' already has a character named {same.name!r}"
        )
    return ev.CharacterCreated(name, owner, ctx.actor)


def set_attribute(state: SessionState, command: cmd.SetAttribute, ctx: Context) -> list[ev.Event]:
    """Set an attribute's MOD on a sheet the actor may change."""
    character = _changeable(state, command.character, ctx)
    _check_entry(character, command.name, command.value, ATTRIBUTE_PATTERN, "an attribute")
    check_optional(command.label, "an attribute's label", MAX_LABEL)
    label = command.label.strip() if command.label else None
    return [ev.AttributeSet(character.name, command.name, command.value, label, ctx.actor)]


def set_quality(state: SessionState, command: cmd.SetQuality, ctx: Context) -> list[ev.Event]:
    """Set a Quality's value on a sheet the actor may change."""
    character = _changeable(state, command.character, ctx)
    _check_entry(character, command.name, command.value, QUALITY_PATTERN, "a Quality")
    return [ev.QualitySet(character.name, command.name, command.value, ctx.actor)]


def save_roll(state: SessionState, command: cmd.SaveRoll, ctx: Context) -> list[ev.Event]:
    """Keep a named roll on a sheet the actor may change; its notation is checked now."""
    character = _changeable(state, command.character, ctx)
    if not re.fullmatch(SAVED_ROLL_PATTERN, command.name):
        raise InvalidInputError(
            "a saved roll's name is 1 to 40 letters, digits, spaces, _ ' or -, "
            f"from a letter or digit, not {command.name!r}"
        )
    kind = RollKind(command.kind).value
    if kind not in SAVED_KINDS:
        raise InvalidInputError(f"a saved roll is one of {', '.join(SAVED_KINDS)}, not {kind}")
    check_expression(command.expression)
    # Each reference stands for a number, so the notation is checked with 0 in its place.
    parse(without_references(command.expression, "0"))
    return [ev.RollSaved(character.name, command.name, kind, command.expression, ctx.actor)]


def retire_character(
    state: SessionState, command: cmd.RetireCharacter, ctx: Context
) -> list[ev.Event]:
    """Take a character out of play; its sheet stays in the log, frozen."""
    character = _changeable(state, command.character, ctx)
    return [ev.CharacterRetired(character.name, ctx.actor)]


def _changeable(state: SessionState, name: str, ctx: Context) -> Character:
    """Return a character the actor may change, or refuse in one line."""
    require_open(state)
    require_member(state, ctx.actor)
    character = state.characters.get(name)
    if character is None:
        raise NotFoundError(f"no character {name!r} in session '{state.session_id}'")
    if character.retired:
        raise CommandRefusedError(f"{name} is retired; its sheet can no longer change")
    if state.is_gm(ctx.actor):
        return character
    if character.is_npc:
        raise PermissionDeniedError(f"only a GM may change the NPC {name}")
    if character.owner != ctx.actor:
        raise PermissionDeniedError(f"{name} is {character.owner}'s character, not yours")
    if state.sheets == GM_SHEETS:
        raise PermissionDeniedError("in this session only a GM may change a character's values")
    return character


def _check_entry(character: Character, name: str, value: int, pattern: str, what: str) -> None:
    if not re.fullmatch(pattern, name):
        shape = (
            "1 to 6 capital letters or digits, from a letter (STR)"
            if pattern == ATTRIBUTE_PATTERN
            else "a letter, then up to 39 letters, digits or underscores (Athletics)"
        )
        raise InvalidInputError(f"{what}'s name is {shape}, not {name!r}")
    if isinstance(value, bool) or not -MAX_SHEET_VALUE <= value <= MAX_SHEET_VALUE:
        raise InvalidInputError(
            f"{what}'s value is -{MAX_SHEET_VALUE} to +{MAX_SHEET_VALUE}, not {value}"
        )
    # One name, one value: @name must never be ambiguous between the two lists.
    other = character.qualities if pattern == ATTRIBUTE_PATTERN else character.attributes
    clash = next((key for key in other if key.casefold() == name.casefold()), None)
    if clash is not None:
        raise InvalidInputError(
            f"{character.name}'s sheet already has {clash!r}; pick another name"
        )

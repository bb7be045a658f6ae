"""``diceledger character``: create, set, retire, show and list a session's characters."""

from __future__ import annotations

import re
from typing import Any

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.options import SESSION, whole_number
from diceledger.cli.output import emit_json, shown
from diceledger.cli.witness import witness
from diceledger.domain.dice.request import RollKind
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.sheets import ATTRIBUTE_PATTERN
from diceledger.infra.app.sheets import CharactersView, CharacterView, SheetResult

CHARACTER = click.argument("character", metavar="CHARACTER")


class SheetValueType(click.ParamType):
    """``NAME=VALUE`` or ``NAME=VALUE:LABEL`` (VALUE may be negative: ``STR=-1``)."""

    name = "NAME=VALUE[:LABEL]"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[str, int, str | None]:
        name, equals, rest = str(value).partition("=")
        number, _, label = rest.partition(":")
        try:
            if not equals or not name.strip():
                raise ValueError
            return name.strip(), whole_number(number), label.strip() or None
        except ValueError:
            self.fail(
                f"'{shown(value)}' is not NAME=VALUE, e.g. STR=3 or STR=3:Strength", param, ctx
            )


@click.group("character")
def character() -> None:
    """Create characters, set their attributes and Qualities, and list them.

    A player keeps their own character (one at a time); a GM may create one for any
    member, create NPCs, and change any sheet. A roll reads a sheet with @NAME:
    `check "$S" "1d20+@STR" --target 12`.
    """


def _show_result(app: AppContext, result: SheetResult, text: str) -> None:
    witness(app, result.sheets.session_id, result.checkpoint)
    if app.json:
        emit_json(result.view)
        return
    click.echo(shown(text))


@character.command("create")
@SESSION
@CHARACTER
@click.option("--npc", is_flag=True, help="GM only: an NPC, kept by the GMs.")
@click.option("--for", "owner", metavar="MEMBER", help="GM only: another member's character.")
@json_option
@pass_app
def create(app: AppContext, session_id: str, character: str, npc: bool, owner: str | None) -> None:
    """Create your character, another member's (GM), or an NPC (GM).

    \b
    Example:
      diceledger --as ann character create "$S" Thalia
      diceledger --as gm character create "$S" Goblin --npc
    """
    if npc and owner:
        raise click.UsageError("an NPC belongs to the GMs: give --npc or --for, not both")
    command = cmd.CreateCharacter(character, None if npc else owner or app.actor)
    result = app.app().change_sheet(app.actor, session_id, command)
    made = result.character
    assert made is not None
    whose = "an NPC" if made.owner is None else f"{made.owner}'s character"
    _show_result(app, result, f"created {made.name}, {whose}")


@character.command("set")
@SESSION
@CHARACTER
@click.argument("value", metavar="NAME=VALUE[:LABEL]", type=SheetValueType())
@click.option("--quality", is_flag=True, help="A Quality even if its name is in capitals.")
@json_option
@pass_app
def set_(
    app: AppContext,
    session_id: str,
    character: str,
    value: tuple[str, int, str | None],
    quality: bool,
) -> None:
    """Set an attribute's MOD (a name in capitals: STR) or a Quality's value (Athletics).

    \b
    Example:
      diceledger --as ann character create "$S" Thalia
      diceledger --as ann character set "$S" Thalia STR=3:Strength
      diceledger --as ann character set "$S" Thalia Athletics=2
      diceledger --as ann check "$S" "1d20+@STR+@Athletics" --target 14
    """
    name, number, label = value
    command: cmd.SetAttribute | cmd.SetQuality
    if quality or not re.fullmatch(ATTRIBUTE_PATTERN, name):
        if label:
            raise click.UsageError("a Quality has a value, not a label")
        command = cmd.SetQuality(character, name, number)
    else:
        command = cmd.SetAttribute(character, name, number, label)
    result = app.app().change_sheet(app.actor, session_id, command)
    _show_result(app, result, f"{character} {name} set to {number:+d}")


@character.command("save-roll")
@SESSION
@CHARACTER
@click.argument("name", metavar="NAME")
@click.argument("expression", metavar="EXPR")
@click.option(
    "--kind",
    type=click.Choice(["effect", "damage", "check"]),
    default="effect",
    show_default=True,
    help="What the roll is for; a check takes its target when rolled.",
)
@json_option
@pass_app
def save_roll(
    app: AppContext, session_id: str, character: str, name: str, expression: str, kind: str
) -> None:
    """Keep a named roll on a sheet, rolled later with `roll --saved NAME`.

    Its @references are read when it is rolled, so it follows the sheet. Saving a name
    again replaces it.

    \b
    Example:
      diceledger --as ann character create "$S" Thalia
      diceledger --as ann character set "$S" Thalia STR=3
      diceledger --as ann character save-roll "$S" Thalia Longsword "1d20+@STR" --kind check
      diceledger --as ann check "$S" --saved Longsword --target 13
    """
    command = cmd.SaveRoll(character, name, RollKind(kind), expression)
    result = app.app().change_sheet(app.actor, session_id, command)
    _show_result(app, result, f"{character} keeps the roll '{name}': {kind} {expression}")


@character.command("retire")
@SESSION
@CHARACTER
@json_option
@pass_app
def retire(app: AppContext, session_id: str, character: str) -> None:
    """Take a character out of play; its sheet stays in the log, frozen.

    \b
    Example:
      diceledger --as ann character create "$S" Thalia
      diceledger --as ann character retire "$S" Thalia
    """
    result = app.app().change_sheet(app.actor, session_id, cmd.RetireCharacter(character))
    _show_result(app, result, f"{character} retired")


@character.command("sheets")
@SESSION
@click.argument("kept_by", metavar="player|gm", type=click.Choice(["player", "gm"]))
@json_option
@pass_app
def sheets(app: AppContext, session_id: str, kept_by: str) -> None:
    """Choose who changes a player character's values (GM): its player, or the GMs only.

    Until a GM chooses, players keep their own characters' sheets.

    \b
    Example:
      diceledger --as gm character sheets "$S" gm
    """
    result = app.app().change_sheet(app.actor, session_id, cmd.SetSheetRights(kept_by))
    who = "the GMs only" if kept_by == "gm" else "their players and the GMs"
    _show_result(app, result, f"character sheets now kept by {who}")


@character.command("show")
@SESSION
@CHARACTER
@json_option
@pass_app
def show(app: AppContext, session_id: str, character: str) -> None:
    """Show one character's sheet: each value, and the log version that set it.

    \b
    Example:
      diceledger --as ann character create "$S" Thalia
      diceledger --as ann character set "$S" Thalia STR=3
      diceledger --as bob character show "$S" Thalia
    """
    found = app.app().character(session_id, character)
    if app.json:
        emit_json(found.view)
        return
    click.echo(shown(_heading(found)))
    for entry in (*found.attributes, *found.qualities):
        label = f" ({entry.label})" if entry.label else ""
        click.echo(shown(f"  {entry.name}{label} {entry.value:+d}  set at version {entry.set_at}"))
    for saved in found.saved:
        click.echo(
            shown(
                f"  roll '{saved.name}': {saved.kind} {saved.expression}  (version {saved.set_at})"
            )
        )


@character.command("list")
@SESSION
@json_option
@pass_app
def list_(app: AppContext, session_id: str) -> None:
    """List the session's characters with their values.

    \b
    Example:
      diceledger --as ann character create "$S" Thalia
      diceledger --as ann character list "$S"
    """
    sheets: CharactersView = app.app().characters(session_id)
    if app.json:
        emit_json(sheets.view)
        return
    who = "the GMs only" if sheets.sheets == "gm" else "their players and the GMs"
    click.echo(shown(f"{len(sheets.characters)} characters; sheets kept by {who}"))
    for found in sheets.characters:
        values = ", ".join(
            f"{entry.name} {entry.value:+d}" for entry in (*found.attributes, *found.qualities)
        )
        click.echo(shown(f"{_heading(found)}{': ' + values if values else ''}"))


def _heading(found: CharacterView) -> str:
    whose = "NPC" if found.owner is None else found.owner
    return f"{found.name} ({whose}){' retired' if found.retired else ''}"

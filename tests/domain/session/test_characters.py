"""Characters as events: who may create and change a sheet, and what is refused."""

from __future__ import annotations

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import (
    CommandRefusedError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
)
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.state import replay
from tests.domain.session.harness import Table, event_as


def table() -> Table:
    """gm, ann and bob; ann plays Thalia (STR +3), the GMs keep the NPC Goblin."""
    t = Table()
    t.run("ann", cmd.CreateCharacter("Thalia", "ann"))
    t.run("ann", cmd.SetAttribute("Thalia", "STR", 3, "Strength"))
    t.run("gm", cmd.CreateCharacter("Goblin", None))
    return t


def test_a_player_creates_and_keeps_their_own_sheet_and_each_change_names_who_made_it() -> None:
    t = table()
    t.run("ann", cmd.SetQuality("Thalia", "Athletics", 2))
    t.run("gm", cmd.SetAttribute("Thalia", "WIS", -1))
    created = event_as(ev.CharacterCreated, t.events[-5])
    assert (created.character, created.owner, created.by) == ("Thalia", "ann", "ann")
    assert [(e.name, e.value, e.by) for e in t.events if isinstance(e, ev.AttributeSet)] == [
        ("STR", 3, "ann"),
        ("WIS", -1, "gm"),
    ]
    thalia = t.state.characters["Thalia"]
    assert thalia.attributes["STR"].label == "Strength"
    assert thalia.qualities["Athletics"].value == 2
    # The fold is the same whether built command by command or replayed from the log.
    replayed = replay(enumerate(t.events, start=1))
    assert replayed.characters == t.state.characters


def test_an_npc_belongs_to_the_gms_and_only_a_gm_changes_it() -> None:
    t = table()
    assert t.state.characters["Goblin"].is_npc
    t.run("gm", cmd.SetAttribute("Goblin", "DEX", 2))
    error = t.refused("ann", cmd.SetAttribute("Goblin", "DEX", 5))
    assert isinstance(error, PermissionDeniedError)
    assert str(error) == "only a GM may change the NPC Goblin"
    assert isinstance(t.refused("ann", cmd.CreateCharacter("Orc", None)), PermissionDeniedError)


@pytest.mark.parametrize(
    ("actor", "command", "error", "message"),
    [
        ("ann", cmd.SetAttribute("Nobody", "STR", 1), NotFoundError, "no character 'Nobody'"),
        ("bob", cmd.SetAttribute("Thalia", "STR", 5), PermissionDeniedError, "not yours"),
        ("bob", cmd.RetireCharacter("Thalia"), PermissionDeniedError, "not yours"),
        ("bob", cmd.CreateCharacter("thalia", "bob"), CommandRefusedError, "already has"),
        ("ann", cmd.CreateCharacter("Second", "ann"), CommandRefusedError, "retire that"),
        ("bob", cmd.CreateCharacter("Brute", "ann"), PermissionDeniedError, "someone else"),
        ("gm", cmd.CreateCharacter("Ghost", "cy"), NotFoundError, "cy is not in"),
        ("ann", cmd.SetAttribute("Thalia", "Str", 1), InvalidInputError, "capital letters"),
        ("ann", cmd.SetAttribute("Thalia", "STRENGTH", 1), InvalidInputError, "1 to 6"),
        ("ann", cmd.SetAttribute("Thalia", "STR", 21), InvalidInputError, "-20 to +20"),
        ("ann", cmd.SetQuality("Thalia", "Foot work", 1), InvalidInputError, "underscores"),
        ("ann", cmd.SetQuality("Thalia", "str", 1), InvalidInputError, "already has 'STR'"),
        ("gm", cmd.SetSheetRights("anyone"), InvalidInputError, "'player' or 'gm'"),
        ("ann", cmd.SetSheetRights("player"), PermissionDeniedError, "only a GM"),
        ("gm", cmd.CreateCharacter("ann", None), CommandRefusedError, "is a member"),
    ],
)
def test_bad_sheet_commands_are_refused_in_one_line_and_append_nothing(
    actor: str, command: cmd.Command, error: type[Exception], message: str
) -> None:
    t = table()
    before = list(t.events)
    refused = t.refused(actor, command)
    assert isinstance(refused, error) and message in str(refused)
    assert "\n" not in str(refused)
    assert t.events == before


def test_under_gm_sheets_only_a_gm_changes_a_player_character() -> None:
    t = table()
    t.run("gm", cmd.SetSheetRights("gm"))
    error = t.refused("ann", cmd.SetAttribute("Thalia", "STR", 5))
    assert isinstance(error, PermissionDeniedError)
    assert "only a GM may change" in str(error)
    t.run("gm", cmd.SetAttribute("Thalia", "STR", 4))
    assert t.state.characters["Thalia"].attributes["STR"].value == 4


def test_a_retired_character_is_frozen_and_its_player_may_start_another() -> None:
    t = table()
    t.run("ann", cmd.RetireCharacter("Thalia"))
    error = t.refused("gm", cmd.SetAttribute("Thalia", "STR", 1))
    assert isinstance(error, CommandRefusedError) and "retired" in str(error)
    t.run("ann", cmd.CreateCharacter("Vex", "ann"))
    assert t.state.character_of("ann") is t.state.characters["Vex"]


def test_a_saved_roll_is_rolled_by_name_and_reads_the_sheet_when_rolled() -> None:
    t = table()
    t.run("ann", cmd.SaveRoll("Thalia", "Longsword", RollKind.CHECK, "1d20+@STR"))
    saved = event_as(ev.RollSaved, t.events[-1])
    assert (saved.name, saved.kind, saved.expression, saved.by) == (
        "Longsword",
        "check",
        "1d20+@STR",
        "ann",
    )
    t.run("ann", cmd.SetAttribute("Thalia", "STR", 4))
    swing = cmd.RequestRoll(RollKind.EFFECT, "", target=Target(12), saved="Longsword")
    events = t.run("ann", swing, faces=(10,))
    request = event_as(ev.RollRequested, events[0])
    assert (request.kind, request.label, request.side.expression) == (
        "check",
        "Longsword",
        "1d20+4[STR]",
    )
    assert event_as(ev.CheckResolved, events[-1]).total == 14


@pytest.mark.parametrize(
    ("actor", "command", "message"),
    [
        ("ann", cmd.RequestRoll(RollKind.EFFECT, "", saved="Axe"), "no saved roll 'Axe'"),
        ("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", saved="Longsword"), "one or the other"),
        ("ann", cmd.RequestRoll(RollKind.EFFECT, "", saved="Longsword"), "needs a target"),
        ("bob", cmd.RequestRoll(RollKind.EFFECT, "", saved="Longsword"), "bob has no saved roll"),
        ("bob", cmd.SaveRoll("Thalia", "Axe", RollKind.DAMAGE, "1d12"), "not yours"),
        ("ann", cmd.SaveRoll("Thalia", "[Axe]", RollKind.DAMAGE, "1d12"), "a saved roll's name"),
        ("ann", cmd.SaveRoll("Thalia", "Axe", RollKind.DAMAGE, "1d12+"), "column 6"),
        ("ann", cmd.SaveRoll("Thalia", "Axe", RollKind.SAVE, "1d20"), "one of effect"),
    ],
)
def test_bad_saved_rolls_are_refused_in_one_line_and_append_nothing(
    actor: str, command: cmd.Command, message: str
) -> None:
    t = table()
    t.run("ann", cmd.SaveRoll("Thalia", "Longsword", RollKind.CHECK, "1d20+@STR"))
    before = list(t.events)
    error = t.refused(actor, command)
    assert message in str(error) and "\n" not in str(error)
    assert t.events == before

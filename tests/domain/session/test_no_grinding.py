"""No grinding: only a player, who cannot learn the unrevealed seed, picks entropy after it.

A GM may be the store's owner and read the seed vault; an NPC's dice are the GM's. So a
salt comes only from a player rolling for themself, and a client seed only from a player
joining themself. A refused request appends nothing.
"""

from __future__ import annotations

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import PermissionDeniedError, RollError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.events import CheckSide
from diceledger.domain.session.state import GM
from tests.domain.session.harness import Table, event_as

CHECK = cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10))


def test_a_player_may_salt_their_own_roll() -> None:
    table = Table()
    events = table.run(
        "ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10), salt="pepper")
    )
    assert event_as(ev.RollRequested, events[0]).salt == "pepper"


def test_a_gm_may_not_salt_a_roll_not_even_their_own() -> None:
    table = Table()
    for command in (
        cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10), salt="grind"),
        cmd.RequestRoll(RollKind.EFFECT, "1d20", salt="grind", on_behalf_of="goblin"),
        cmd.RequestRoll(RollKind.EFFECT, "1d20", salt="grind", on_behalf_of="ann"),
    ):
        error = table.refused("gm", command)
        assert isinstance(error, RollError)
        assert str(error).startswith("a GM's roll takes no salt")


def test_a_co_gm_promoted_from_player_loses_the_salt() -> None:
    table = Table()
    table.run("gm", cmd.JoinSession("ann", as_gm=True))
    error = table.refused(
        "ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10), salt="s")
    )
    assert isinstance(error, RollError)


def test_an_opposed_check_salted_by_a_gm_is_refused_and_by_a_player_is_not() -> None:
    table = Table()
    npc = cmd.RequestOpposed(CheckSide("gm", "1d20"), CheckSide("ogre", "1d20"), salt="grind")
    assert isinstance(table.refused("gm", npc), RollError)
    duel = cmd.RequestOpposed(CheckSide("ann", "1d20"), CheckSide("bob", "1d20"), salt="mine")
    assert event_as(ev.RollRequested, table.run("ann", duel, faces=[15, 3])[0]).salt == "mine"


def test_a_gm_may_not_choose_a_client_seed_for_anyone() -> None:
    table = Table()
    for command in (
        cmd.JoinSession("cara", "chosen by the gm"),
        cmd.JoinSession("dan", "chosen by the gm", as_gm=True),
        cmd.JoinSession("ann", "new words", as_gm=True),
    ):
        error = table.refused("gm", command)
        assert isinstance(error, PermissionDeniedError)
        assert str(error) == "only a player joining themself may choose a client seed"
    table.run("gm", cmd.JoinSession("cara"))  # added without a client seed: allowed
    assert table.state.members["cara"].client_seed == ""


def test_a_player_joining_themself_chooses_their_client_seed() -> None:
    table = Table(players=())
    table.run("ann", cmd.JoinSession("ann", "ann's own words"))
    assert table.state.members["ann"].client_seed == "ann's own words"
    assert table.state.members["gm"].role == GM


@pytest.mark.parametrize("salt", ["", "x"])
def test_an_unsalted_gm_roll_is_still_a_roll(salt: str) -> None:
    table = Table()
    events = table.run("ann" if salt else "gm", cmd.RequestRoll(RollKind.EFFECT, "1d6", salt=salt))
    assert event_as(ev.RollRequested, events[0]).salt == salt

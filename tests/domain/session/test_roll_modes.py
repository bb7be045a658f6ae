"""Roll modes: who sees a roll (may_see), what the others read, who may reveal it, the end."""

from __future__ import annotations

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import (
    DiceledgerError,
    NotFoundError,
    PermissionDeniedError,
    RerollError,
    RollError,
)
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.views import roll_view
from diceledger.domain.session.visibility import EVERYONE, Viewer, may_see
from tests.domain.session.harness import Table, event_as, names

VIEWERS: tuple[Viewer, ...] = ("gm", "mira", "ann", "bob", EVERYONE)
# Who sees a roll ann makes in each mode before it is revealed (mira is a co-GM).
SEEN_BY: dict[RollMode, set[Viewer]] = {
    RollMode.PUBLIC: {"gm", "mira", "ann", "bob", EVERYONE},
    RollMode.GM: {"gm", "mira", "ann"},
    RollMode.BLIND: {"gm", "mira"},
    RollMode.SELF: {"ann"},
}
WORDS = {
    RollMode.GM: "ann rolled privately",
    RollMode.BLIND: "ann rolled blind",
    RollMode.SELF: "ann rolled for their own eyes",
}


def table_with_a_co_gm() -> Table:
    table = Table()
    table.run("gm", cmd.JoinSession("mira", as_gm=True))
    return table


def anns_check(mode: RollMode) -> cmd.RequestRoll:
    return cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12), mode=mode, faces=(14,))


@pytest.mark.parametrize("mode", list(RollMode))
def test_each_mode_is_seen_by_exactly_its_audience(mode: RollMode) -> None:
    table = table_with_a_co_gm()
    (request, *_) = table.run("ann", anns_check(mode))
    assert event_as(ev.RollRequested, request).mode == mode.value
    roll = table.state.rolls[1]
    assert {v for v in VIEWERS if may_see(table.state, roll, v)} == SEEN_BY[mode]


@pytest.mark.parametrize("mode", [RollMode.GM, RollMode.BLIND, RollMode.SELF])
def test_a_viewer_who_may_not_see_reads_only_who_rolled_and_how(mode: RollMode) -> None:
    table = table_with_a_co_gm()
    table.run("ann", anns_check(mode))
    outsider = "bob" if mode is not RollMode.SELF else "gm"
    view = roll_view(table.state, table.state.rolls[1], outsider)
    assert view["text"] == WORDS[mode] and view["mode"] == mode.value
    assert "total" not in view and "dice" not in view and "expression" not in view


def test_a_gms_blind_roll_names_no_gm() -> None:
    table = Table()
    table.run("gm", cmd.RequestRoll(RollKind.EFFECT, "1d6", mode=RollMode.BLIND, faces=(3,)))
    assert roll_view(table.state, table.state.rolls[1], "ann")["text"] == "the GM rolled blind"


def test_a_gm_reveals_a_gm_or_blind_roll_and_its_roller_may_not() -> None:
    table = table_with_a_co_gm()
    table.run("ann", anns_check(RollMode.GM))
    table.run("ann", anns_check(RollMode.BLIND))
    for roll_id in (1, 2):
        error = table.refused("ann", cmd.RevealRoll(roll_id))
        assert isinstance(error, PermissionDeniedError)
        assert str(error) == "only a GM may reveal a gm or blind roll"
    assert isinstance(table.refused("bob", cmd.RevealRoll(1)), PermissionDeniedError)
    assert names(table.run("mira", cmd.RevealRoll(1))) == ["RollRevealed"]
    assert names(table.run("gm", cmd.RevealRoll(2))) == ["RollRevealed"]
    assert all(may_see(table.state, table.state.rolls[n], "bob") for n in (1, 2))


def test_only_the_roller_reveals_a_self_roll() -> None:
    table = table_with_a_co_gm()
    table.run("ann", anns_check(RollMode.SELF))
    version = table.state.version
    # A GM cannot see another's self roll, so cannot find it to reveal it.
    assert isinstance(table.refused("gm", cmd.RevealRoll(1)), NotFoundError)
    assert isinstance(table.refused("bob", cmd.RevealRoll(1)), PermissionDeniedError)
    assert table.state.version == version  # nothing appended
    assert names(table.run("ann", cmd.RevealRoll(1))) == ["RollRevealed"]
    assert may_see(table.state, table.state.rolls[1], "bob")
    error = table.refused("ann", cmd.RevealRoll(1))
    assert isinstance(error, RollError) and "not hidden" in str(error)


def test_a_gm_reveals_their_own_self_roll_and_a_co_gm_never_saw_it() -> None:
    table = table_with_a_co_gm()
    table.run("gm", cmd.RequestRoll(RollKind.EFFECT, "1d6", mode=RollMode.SELF, faces=(5,)))
    assert not may_see(table.state, table.state.rolls[1], "mira")
    assert isinstance(table.refused("mira", cmd.RevealRoll(1)), NotFoundError)
    table.run("gm", cmd.RevealRoll(1))
    assert may_see(table.state, table.state.rolls[1], "mira")


def test_a_public_roll_has_nothing_to_reveal() -> None:
    table = Table()
    table.run("ann", anns_check(RollMode.PUBLIC))
    assert isinstance(table.refused("gm", cmd.RevealRoll(1)), RollError)


def test_the_end_shows_self_rolls_and_keeps_gm_and_blind_rolls_hidden() -> None:
    table = table_with_a_co_gm()
    for mode in (RollMode.GM, RollMode.BLIND, RollMode.SELF):
        table.run("ann", anns_check(mode))
    table.run("gm", cmd.EndSession(table.seed))
    seen = [may_see(table.state, table.state.rolls[n], "bob") for n in (1, 2, 3)]
    assert seen == [False, False, True]
    assert may_see(table.state, table.state.rolls[3], "gm")


def test_a_player_may_not_hold_rerolls_on_a_blind_roll_they_cannot_see() -> None:
    table = Table()
    blind = cmd.RequestRoll(RollKind.DAMAGE, "2d6", rerolls=1, mode=RollMode.BLIND, faces=(1, 5))
    error = table.refused("ann", blind)
    assert isinstance(error, RerollError) and "cannot choose dice to reroll" in str(error)
    # The default policy may choose for them; a GM's blind roll may wait for the GM.
    table.run("ann", cmd.RequestRoll(RollKind.DAMAGE, "2d6", rerolls=1, mode=RollMode.BLIND,
                                      auto_reroll=True, faces=(1, 5, 4)))  # fmt: skip
    assert table.state.rolls[1].resolution is not None
    table.run("gm", cmd.RequestRoll(RollKind.DAMAGE, "2d6", rerolls=1, mode=RollMode.BLIND,
                                     faces=(1, 5)))  # fmt: skip
    assert table.state.rolls[2].resolution is None


def test_a_player_may_not_hold_rerolls_on_their_side_of_a_blind_opposed_check() -> None:
    table = Table()
    duel = cmd.RequestOpposed(
        ev.CheckSide("ann", "1d20"), ev.CheckSide("bob", "1d20"), rerolls=1,
        mode=RollMode.BLIND,
    )  # fmt: skip
    error = table.refused("ann", duel)
    assert isinstance(error, RerollError) and "cannot choose dice to reroll" in str(error)
    # A GM's own side of a blind check may hold rerolls: the GM sees the dice.
    gms = cmd.RequestOpposed(
        ev.CheckSide("gm", "1d20"), ev.CheckSide("orc", "1d20"), rerolls=1,
        mode=RollMode.BLIND, faces=(3, 9),
    )  # fmt: skip
    table.run("gm", gms)
    assert table.state.rolls[1].resolution is None  # waiting for the GM's rerolls


def test_an_opponent_who_cannot_see_a_private_check_gets_no_rerolls() -> None:
    table = Table()
    for mode in (RollMode.GM, RollMode.SELF):
        duel = cmd.RequestOpposed(
            ev.CheckSide("ann", "1d20"), ev.CheckSide("bob", "1d20"), opponent_rerolls=1,
            mode=mode,
        )  # fmt: skip
        error = table.refused("ann", duel)
        assert isinstance(error, RerollError) and "bob cannot reroll" in str(error)


@pytest.mark.parametrize("mode", list(RollMode))
def test_the_view_offers_a_reveal_to_exactly_whom_the_rules_let_reveal(mode: RollMode) -> None:
    for viewer in ("gm", "mira", "ann", "bob"):
        table = table_with_a_co_gm()
        table.run("ann", anns_check(mode))
        offered = roll_view(table.state, table.state.rolls[1], viewer).get("may_reveal", False)
        try:
            table.run(viewer, cmd.RevealRoll(1))
        except DiceledgerError:
            allowed = False
        else:
            allowed = True
        assert offered == allowed, (mode, viewer)

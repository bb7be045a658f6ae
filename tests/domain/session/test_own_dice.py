"""An opposed check whose other side rolls its own dice (R6, R14): the check waits for them.

The request's side's dice come from the request; the other member rolls theirs with a
command of their own, typed in from physical dice or by the server, in every round, and
before either side rerolls. Seeded dice here are scripted per nonce by the harness.
"""

from __future__ import annotations

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import PermissionDeniedError, RerollError, RollError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.events import CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.opposed import standing, waiting_side
from diceledger.domain.session.rolls import replay_rounds, rolls_own_dice
from diceledger.domain.session.state import RESOLVED
from diceledger.domain.verification.review import resolution_steps
from tests.domain.session.harness import Table, event_as, names


def duel(rerolls: int = 0, vs_rerolls: int = 0, **options: object) -> cmd.RequestOpposed:
    """Ann's 1d20+2 against Bob's own 1d20, rolled by Bob."""
    return cmd.RequestOpposed(
        CheckSide("ann", "1d20+2"),
        CheckSide("bob", "1d20"),
        rerolls=rerolls,
        opponent_rerolls=vs_rerolls,
        exploding=False,
        opponent_rolls=True,
        **options,  # type: ignore[arg-type]
    )


def test_r6_the_request_rolls_only_its_own_side_and_waits_for_the_other_members_dice() -> None:
    table = Table()
    events = table.run("ann", duel(), faces=[12])
    assert names(events) == ["RollRequested", "DiceRolled"]
    assert event_as(ev.DiceRolled, events[1]).side == 0
    roll = table.state.rolls[1]
    assert roll.status != RESOLVED
    assert waiting_side(table.state, roll) == 1 and standing(table.state, roll).awaits_dice
    assert rolls_own_dice(roll)
    ((ann, bob),) = replay_rounds(roll)
    assert ann.total == 14 and bob is None
    assert "round 1, bob: yet to roll their own dice" in resolution_steps(roll)


def test_r6_the_other_member_types_in_their_own_dice_and_the_check_resolves() -> None:
    table = Table()
    table.run("ann", duel(), faces=[12])
    events = table.run("bob", cmd.RollSide(1, (17,)))
    assert names(events) == ["DiceRolled", "CheckResolved"]
    rolled = event_as(ev.DiceRolled, events[0])
    assert (rolled.side, rolled.round, rolled.dice[0].face, rolled.dice[0].source) == (
        1,
        1,
        17,
        "manual",
    )
    assert rolled.dice[0].nonce == 2  # bob's command, not the request (nonce 1)
    resolved = event_as(ev.CheckResolved, events[1])
    assert (resolved.total, resolved.opponent_total, resolved.winner) == (14, 17, "bob")


def test_r6_without_faces_the_server_rolls_the_other_members_side_when_they_ask() -> None:
    table = Table()
    table.run("ann", duel(), faces=[12])
    events = table.run("bob", cmd.RollSide(1), faces=[5])
    rolled = event_as(ev.DiceRolled, events[0])
    assert (rolled.dice[0].face, rolled.dice[0].source) == (5, "seeded")
    assert event_as(ev.CheckResolved, events[1]).winner == "ann"


def test_r6_nobody_but_the_other_member_rolls_their_side() -> None:
    table = Table()
    table.run("ann", duel(), faces=[12])
    refused = table.refused("ann", cmd.RollSide(1, (20,)))
    assert isinstance(refused, PermissionDeniedError)
    assert "only bob may roll it" in str(refused)
    assert isinstance(table.refused("gm", cmd.RollSide(1, (20,))), PermissionDeniedError)


def test_r14_both_sides_roll_before_either_rerolls() -> None:
    table = Table()
    table.run("ann", duel(rerolls=1, vs_rerolls=1), faces=[3])
    refused = table.refused("ann", cmd.Reroll(1, (0,)))
    assert isinstance(refused, RerollError)
    assert "waits for bob to roll their dice first" in str(refused)
    assert isinstance(table.refused("ann", cmd.Accept(1)), RerollError)
    events = table.run("bob", cmd.RollSide(1, (9,)))
    assert names(events) == ["DiceRolled"]  # now ann's turn to reroll, knowing bob's 9
    roll = table.state.rolls[1]
    assert waiting_side(table.state, roll) == 0 and not standing(table.state, roll).awaits_dice
    again = table.refused("bob", cmd.RollSide(1, (9,)))
    assert isinstance(again, RollError) and "every side of this round is rolled" in str(again)
    table.run("ann", cmd.Reroll(1, (0,)), faces=[15])
    assert isinstance(table.refused("bob", cmd.RollSide(1, (4,))), RollError)
    done = table.run("bob", cmd.Accept(1))
    assert event_as(ev.CheckResolved, done[-1]).winner == "ann"


def test_r6_a_tie_rolls_the_request_side_from_the_server_and_waits_for_the_other_again() -> None:
    table = Table()
    table.run("ann", duel(), faces=[8])
    events = table.run("bob", cmd.RollSide(1, (10,)), faces=[6])
    assert names(events) == ["DiceRolled", "OpposedCheckTied", "DiceRolled"]
    fresh = event_as(ev.DiceRolled, events[2])
    assert (fresh.side, fresh.round, fresh.dice[0].face) == (0, 2, 6)
    assert fresh.dice[0].source == "seeded" and fresh.dice[0].nonce == 2
    roll = table.state.rolls[1]
    assert standing(table.state, roll).awaits_dice and waiting_side(table.state, roll) == 1
    stale = table.refused("bob", cmd.RollSide(1, (3,), cmd.Turn(1, 1)))
    assert "has moved on" in str(stale)
    last = table.run("bob", cmd.RollSide(1, (3,), cmd.Turn(1, 2)))
    resolved = event_as(ev.CheckResolved, last[-1])
    assert (resolved.total, resolved.opponent_total, resolved.rounds) == (8, 3, 2)


def test_r6_faces_left_over_are_refused_and_nothing_is_recorded() -> None:
    table = Table()
    table.run("ann", duel(), faces=[12])
    refused = table.refused("bob", cmd.RollSide(1, (17, 4)))
    assert "only for your own side" in str(refused)
    assert len(table.state.rolls[1].dice) == 1


def test_r6_the_end_rolls_a_side_still_to_be_rolled_from_the_seed() -> None:
    table = Table()
    table.run("ann", duel(vs_rerolls=1), faces=[12])
    nonce = table.state.next_nonce
    table.dice.faces[nonce] = [19]
    events = table.run("gm", cmd.EndSession(table.seed))
    rolled = next(e for e in events if isinstance(e, ev.DiceRolled))
    assert (rolled.side, rolled.round, rolled.dice[0].face) == (1, 1, 19)
    assert rolled.dice[0].nonce == nonce
    resolved = next(e for e in events if isinstance(e, ev.CheckResolved))
    assert resolved.winner == "bob"


@pytest.mark.parametrize(
    ("actor", "command", "says"),
    [
        (
            "gm",
            cmd.RequestOpposed(
                CheckSide("gm", "1d20"), CheckSide("ghoul", "1d20"), opponent_rolls=True
            ),
            "ghoul is an NPC",
        ),
        ("ann", duel(mode=RollMode.GM), "cannot roll their side of a gm roll"),
        (
            "bob",
            cmd.RequestOpposed(
                CheckSide("bob", "1d20"),
                CheckSide("gm", "1d20"),
                mode=RollMode.SELF,
                opponent_rolls=True,
            ),
            "gm cannot roll their side of a self roll",
        ),
    ],
)
def test_r6_a_side_rolls_its_own_dice_only_where_its_member_can(
    actor: str, command: cmd.RequestOpposed, says: str
) -> None:
    table = Table()
    refused = table.refused(actor, command)
    assert isinstance(refused, RollError) and says in str(refused)


def test_r6_a_check_that_rolls_both_sides_has_no_side_to_roll() -> None:
    table = Table()
    both = cmd.RequestOpposed(
        CheckSide("ann", "1d20"), CheckSide("bob", "1d20"), opponent_rerolls=1
    )
    table.run("ann", both, faces=[3, 4])
    assert not rolls_own_dice(table.state.rolls[1])
    refused = table.refused("bob", cmd.RollSide(1, (9,)))
    assert isinstance(refused, RollError) and "not their dice" in str(refused)
    table.run(
        "ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10), rerolls=1), faces=[2]
    )
    single = table.refused("ann", cmd.RollSide(2, (9,)))
    assert isinstance(single, RollError) and "not an opposed check" in str(single)

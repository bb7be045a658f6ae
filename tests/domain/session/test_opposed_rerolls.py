"""Rerolls on opposed checks (R6, R11, R14): whose allowance, whose turn, ties and carries.

Every check here uses typed-in faces through the scripted dice of the harness: the faces
given with a command are the ones its dice show, in draw order.
"""

from __future__ import annotations

import pytest

from diceledger.domain.dice.request import RerollScope, RollKind
from diceledger.domain.errors import PermissionDeniedError, RerollError, RollError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.events import CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.opposed import waiting_side
from diceledger.domain.session.rolls import replay_rounds
from diceledger.domain.session.state import AWAITING, RESOLVED
from diceledger.domain.verification.review import resolution_steps, review
from tests.documents import array_at, at
from tests.domain.session.harness import Table


def duel(rerolls: int = 1, vs_rerolls: int = 1, **options: object) -> cmd.RequestOpposed:
    """Ann's 1d20+2 against Bob's 1d20, each side with its allowance."""
    return cmd.RequestOpposed(
        CheckSide("ann", "1d20+2"),
        CheckSide("bob", "1d20"),
        rerolls=rerolls,
        opponent_rerolls=vs_rerolls,
        **options,  # type: ignore[arg-type]
    )


def kinds(events: list[ev.Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def test_r6_r11_r14_both_sides_roll_then_the_request_side_decides_first() -> None:
    table = Table()
    events = table.run("ann", duel(), faces=[3, 12])
    assert kinds(events) == ["RollRequested", "DiceRolled", "DiceRolled"]
    roll = table.state.rolls[1]
    assert roll.status == AWAITING and waiting_side(table.state, roll) == 0


def test_r14_the_round_is_compared_only_once_both_sides_have_decided() -> None:
    table = Table()
    table.run("ann", duel(), faces=[3, 12])
    rerolled = table.run("ann", cmd.Reroll(1, (0,)), faces=[17])
    # Ann spent her one reroll: now Bob's turn, and still no comparison.
    assert kinds(rerolled) == ["DieRerolled"]
    assert (rerolled[0].side, rerolled[0].round) == (0, 1)  # type: ignore[union-attr]
    assert waiting_side(table.state, table.state.rolls[1]) == 1
    accepted = table.run("bob", cmd.Accept(1))
    assert kinds(accepted) == ["RollAccepted", "CheckResolved"]
    assert accepted[0] == ev.RollAccepted(1, "bob", 1, side=1, round=1)
    resolved = accepted[1]
    assert isinstance(resolved, ev.CheckResolved)
    assert (resolved.total, resolved.opponent_total, resolved.winner) == (19, 12, "ann")


def test_r6_r11_when_both_sides_reroll_each_totals_its_new_dice() -> None:
    table = Table()
    table.run("ann", duel(), faces=[3, 12])
    table.run("ann", cmd.Reroll(1, (0,)), faces=[11])
    events = table.run("bob", cmd.Reroll(1, (0,)), faces=[16])
    assert kinds(events) == ["DieRerolled", "CheckResolved"]
    ((ann, bob),) = replay_rounds(table.state.rolls[1])
    assert bob is not None
    assert (ann.total, bob.total) == (13, 16)
    assert table.state.rolls[1].resolution.winner == "bob"  # type: ignore[union-attr]


def test_r6_r11_a_tie_after_a_reroll_rolls_the_next_round_in_the_same_command() -> None:
    table = Table()
    table.run("ann", duel(vs_rerolls=0), faces=[3, 12])
    events = table.run("ann", cmd.Reroll(1, (0,)), faces=[10, 5, 9])
    assert kinds(events) == [
        "DieRerolled",
        "OpposedCheckTied",
        "DiceRolled",
        "DiceRolled",
        "CheckResolved",
    ]
    nonce = events[0].die.nonce  # type: ignore[union-attr]
    assert {d.nonce for e in events[2:4] for d in e.dice} == {nonce}  # type: ignore[union-attr]
    resolved = events[-1]
    assert isinstance(resolved, ev.CheckResolved)
    assert (resolved.total, resolved.opponent_total, resolved.rounds) == (7, 9, 2)


def test_r6_r11_an_unspent_allowance_carries_into_the_next_round() -> None:
    table = Table()
    table.run("ann", duel(rerolls=2, vs_rerolls=1), faces=[3, 12])
    table.run("ann", cmd.Reroll(1, (0,)), faces=[10])  # 12 vs 12, one reroll left
    table.run("ann", cmd.Accept(1))  # ann keeps it for the rounds to come
    tie = table.run("bob", cmd.Accept(1), faces=[4, 6])
    assert kinds(tie) == ["RollAccepted", "OpposedCheckTied", "DiceRolled", "DiceRolled"]
    roll = table.state.rolls[1]
    # Round 2: ann still has the reroll she left, bob the one he left: each waits again.
    assert roll.status == AWAITING and waiting_side(table.state, roll) == 0
    table.run("ann", cmd.Reroll(1, (0,)), faces=[15])
    assert waiting_side(table.state, roll) == 1
    last = table.run("bob", cmd.Reroll(1, (0,)), faces=[20, 1])
    assert kinds(last) == ["DieRerolled", "DieExploded", "CheckResolved"]
    resolution = roll.resolution
    assert isinstance(resolution, ev.CheckResolved)
    assert (resolution.total, resolution.opponent_total, resolution.rounds) == (17, 21, 2)


def test_r6_r11_rerolls_spent_in_an_earlier_round_do_not_come_back() -> None:
    table = Table()
    table.run("ann", duel(rerolls=1, vs_rerolls=0), faces=[3, 12])
    tie = table.run("ann", cmd.Reroll(1, (0,)), faces=[10, 7, 9])
    assert kinds(tie)[-1] == "CheckResolved"  # no allowance left: round 2 is compared at once
    assert table.state.actions["roll-1"].remaining == 0


def test_r11_a_side_cannot_spend_more_than_its_allowance() -> None:
    table = Table()
    table.run("ann", duel(rerolls=0, vs_rerolls=1), faces=[3, 12])
    error = table.refused("bob", cmd.Reroll(1, (0, 0)))
    assert isinstance(error, RerollError) and str(error) == "2 rerolls asked, 1 left"
    table.run("bob", cmd.Reroll(1, (0,)), faces=[9])
    assert str(table.refused("bob", cmd.Reroll(1, (1,)))) == "roll 1 is already resolved"


def test_r11_the_other_sides_player_may_not_reroll_the_request_side() -> None:
    table = Table()
    table.run("ann", duel(), faces=[3, 12])
    error = table.refused("bob", cmd.Reroll(1, (0,)))
    assert isinstance(error, PermissionDeniedError)
    assert str(error) == (
        "roll 1 waits for ann's side; only ann may reroll it, "
        "and nobody rerolls the other side's dice"
    )
    assert isinstance(table.refused("bob", cmd.Accept(1)), PermissionDeniedError)


def test_r11_the_requester_may_not_reroll_or_accept_the_other_side() -> None:
    table = Table()
    table.run("ann", duel(), faces=[3, 12])
    table.run("ann", cmd.Accept(1))
    error = table.refused("ann", cmd.Reroll(1, (0,)))
    assert isinstance(error, PermissionDeniedError)
    assert "waits for bob's side; only bob may reroll it" in str(error)
    assert isinstance(table.refused("ann", cmd.Accept(1)), PermissionDeniedError)


def test_r11_neither_a_third_player_nor_the_gm_takes_a_players_turn() -> None:
    table = Table(players=("ann", "bob", "cy"))
    table.run("ann", duel(), faces=[3, 12])
    for actor in ("cy", "gm"):
        assert isinstance(table.refused(actor, cmd.Reroll(1, (0,))), PermissionDeniedError)
        assert isinstance(table.refused(actor, cmd.Accept(1)), PermissionDeniedError)


def test_r11_a_player_may_not_reroll_an_npc_side_but_any_gm_may() -> None:
    table = Table()
    table.run("gm", cmd.JoinSession("mira", as_gm=True))
    npc = cmd.RequestOpposed(
        CheckSide("ann", "1d20"), CheckSide("orc", "1d20"), opponent_rerolls=1, on_behalf_of="ann"
    )
    table.run("gm", npc, faces=[9, 4])
    error = table.refused("ann", cmd.Reroll(1, (0,)))
    assert "waits for orc's side; only a GM may reroll it" in str(error)
    events = table.run("mira", cmd.Reroll(1, (0,)), faces=[15])  # a co-GM takes the NPC's turn
    assert kinds(events) == ["DieRerolled", "CheckResolved"]
    assert table.state.rolls[1].resolution.winner == "orc"  # type: ignore[union-attr]


def test_r11_the_damage_scope_does_not_make_the_request_side_wait() -> None:
    table = Table()
    table.run("ann", duel(rerolls=2, vs_rerolls=0, reroll_scope=RerollScope.DAMAGE), faces=[3, 12])
    roll = table.state.rolls[1]
    assert roll.status == RESOLVED
    assert table.state.actions["roll-1"].remaining == 2  # kept for the action's damage


def test_r11_an_opposed_check_shares_what_its_action_has_left() -> None:
    table = Table()
    table.run(
        "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", action_id="grab", rerolls=2), faces=[2]
    )
    table.run("ann", cmd.Accept(1))
    table.run("ann", duel(rerolls=0, vs_rerolls=0, action_id="grab"), faces=[3, 12])
    assert waiting_side(table.state, table.state.rolls[2]) == 0
    table.run("ann", cmd.Reroll(2, (0,)), faces=[6])
    assert table.state.actions["grab"].remaining == 1


def test_r11_an_actions_rerolls_wait_while_an_opposed_check_of_it_waits_for_them() -> None:
    table = Table()
    table.run("ann", duel(rerolls=1, vs_rerolls=0, action_id="grab"), faces=[3, 12])
    table.run("ann", cmd.RequestRoll(RollKind.DAMAGE, "1d6", action_id="grab"), faces=[2])
    error = table.refused("ann", cmd.Reroll(2, (0,)))
    assert isinstance(error, RerollError)
    assert str(error) == (
        "roll 1, an opposed check of action 'grab', waits for its rerolls; "
        "reroll or accept it first"
    )
    # Its last reroll spent, the check goes on, and the damage resolves as it stands.
    events = table.run("ann", cmd.Reroll(1, (0,)), faces=[18])
    assert kinds(events) == ["DieRerolled", "CheckResolved", "RollResolved"]


def test_r11_a_blind_opposed_check_gives_a_player_no_rerolls_they_could_not_see() -> None:
    table = Table()
    blind = cmd.RequestOpposed(
        CheckSide("orc", "1d20"), CheckSide("ann", "1d20"), opponent_rerolls=1, mode=RollMode.BLIND
    )
    error = table.refused("gm", blind)
    assert str(error) == "ann cannot reroll in a blind roll they cannot see"


def test_r11_an_allowance_out_of_bounds_is_refused() -> None:
    table = Table()
    error = table.refused("ann", duel(vs_rerolls=1001))
    assert str(error) == "a reroll allowance is 0 to 1000, not 1001"


def test_an_accept_whose_round_does_not_tie_takes_no_nonce() -> None:
    table = Table()
    table.run("ann", duel(rerolls=1, vs_rerolls=0), faces=[14, 12])
    before = table.state.next_nonce
    events = table.run("ann", cmd.Accept(1))
    assert kinds(events) == ["RollAccepted", "CheckResolved"]
    assert table.state.next_nonce == before
    assert table.dice.nonces == [1]  # no seeded source was even made for the accept


def test_r6_an_accept_whose_round_ties_rolls_the_next_round_under_the_next_nonce() -> None:
    table = Table()
    table.run("ann", duel(rerolls=1, vs_rerolls=0), faces=[10, 12])
    nonce = table.state.next_nonce
    events = table.run("ann", cmd.Accept(1), faces=[4, 2])
    # 12 all: a fresh round, where ann, with the reroll she kept, waits again.
    assert kinds(events) == ["RollAccepted", "OpposedCheckTied", "DiceRolled", "DiceRolled"]
    assert {d.nonce for e in events[2:] for d in e.dice} == {nonce}  # type: ignore[union-attr]
    assert table.state.next_nonce == nonce + 1
    assert waiting_side(table.state, table.state.rolls[1]) == 0


def test_the_end_accepts_every_waiting_side_and_rolls_a_tie_to_its_end() -> None:
    table = Table()
    table.run("ann", duel(rerolls=1, vs_rerolls=2), faces=[10, 12])
    nonce = table.state.next_nonce
    table.dice.faces[nonce] = [4, 2]
    events = table.run("gm", cmd.EndSession(table.seed))
    assert kinds(events)[:7] == [
        "RollAccepted",
        "RollAccepted",
        "OpposedCheckTied",
        "DiceRolled",
        "DiceRolled",
        "CheckResolved",
        "SeedRevealed",
    ]
    assert [(e.side, e.rerolls_left, e.by) for e in events[:2]] == [  # type: ignore[union-attr]
        (0, 0, "gm"),
        (1, 0, "gm"),
    ]


def test_a_check_without_rerolls_on_either_side_takes_none_from_its_action() -> None:
    # How a version 1 log recorded every opposed check: verify decides those again so.
    table = Table()
    table.run(
        "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", action_id="grab", rerolls=2), faces=[2]
    )
    table.run("ann", cmd.Accept(1))
    old = duel(rerolls=0, vs_rerolls=0, action_id="grab")
    legacy = cmd.RequestOpposed(old.side, old.opponent, action_id="grab", opponent_rerolls=None)
    events = table.run("ann", legacy, faces=[3, 12])
    assert kinds(events)[-1] == "CheckResolved"
    request = events[0]
    assert isinstance(request, ev.RollRequested) and request.opponent_rerolls_granted is None
    granting = cmd.RequestOpposed(old.side, old.opponent, rerolls=1, opponent_rerolls=None)
    with pytest.raises(RollError):
        table.run("ann", granting)


def test_a_review_shows_each_sides_rerolls_and_accepts_round_by_round() -> None:
    table = Table()
    table.run("ann", duel(rerolls=1, vs_rerolls=1), faces=[3, 12])
    table.run("ann", cmd.Reroll(1, (0,)), faces=[10])
    table.run("bob", cmd.Accept(1), faces=[9, 4])
    roll = table.state.rolls[1]
    assert resolution_steps(roll)[1:] == [
        "round 1, ann: dice rolled: #0 d20=3",
        "round 1, ann: reroll: #0 (3) discarded, #1 shows 10",
        "round 1, bob: dice rolled: #0 d20=12",
        "round 1, bob: accepted by bob (1 rerolls left)",
        "round 1: ann 12, bob 12 (tie: roll again)",
        "round 2, ann: dice rolled: #0 d20=9",
        "round 2, bob: dice rolled: #0 d20=4",
        "round 2: ann 11, bob 4 (not compared yet: a side may still reroll)",
        "status: awaiting_rerolls",
    ]
    rows = array_at(review(table.state, roll, [], {}), "dice")
    keys = ("side", "round", "index", "face", "discarded")
    shown = [tuple(at(row, key) for key in keys) for row in rows]
    assert shown == [
        (0, 1, 0, 3, True),
        (0, 1, 1, 10, False),
        (1, 1, 0, 12, False),
        (0, 2, 0, 9, False),
        (1, 2, 0, 4, False),
    ]

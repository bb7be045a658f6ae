"""The aggregate's roll decisions: events, rules and refusals."""

from __future__ import annotations

import pytest

from diceledger.domain.dice.request import DC_BASE, RerollScope, RollKind, Target
from diceledger.domain.errors import (
    CommandRefusedError,
    ManualFacesError,
    NotFoundError,
    PermissionDeniedError,
    RerollError,
    RollError,
)
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.rolls import replay_state
from tests.domain.session.harness import Table, event_as, names


def test_a_check_is_requested_rolled_exploded_and_resolved_as_events() -> None:
    table = Table()
    events = table.run(
        "ann", cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(15)), faces=[20, 3]
    )
    assert names(events) == ["RollRequested", "DiceRolled", "DieExploded", "CheckResolved"]
    resolved = events[-1]
    assert isinstance(resolved, ev.CheckResolved)
    assert (resolved.total, resolved.success, resolved.margin) == (25, True, 10)
    exploded = events[2]
    assert isinstance(exploded, ev.DieExploded)
    assert (exploded.die.sides, exploded.die.step, exploded.die.parent) == (20, 1, 0)


def test_r4_dc_request_keeps_the_modifier_and_the_target() -> None:
    table = Table()
    command = cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target.dc(3, "WIS"))
    request = table.run("ann", command, faces=[12])[0]
    assert isinstance(request, ev.RollRequested)
    assert (request.target, request.dc_modifier, request.dc_label) == (13, 3, "WIS")


def test_r4_a_dc_whose_target_is_not_ten_plus_its_modifier_cannot_be_requested() -> None:
    # Any client builds commands through the domain's Target, which derives a DC's target;
    # a request naming a DC of 3 and a target of 99 never reaches the log.
    with pytest.raises(RollError, match="a DC of 3 is a target of 13, not 99"):
        Target(99, dc_modifier=3)
    assert Target.dc(3) == Target(DC_BASE + 3, dc_modifier=3)


def test_r5_save_records_its_origin_and_needs_one() -> None:
    table = Table()
    command = cmd.RequestRoll(RollKind.SAVE, "1d20+1", target=Target(12), against="banshee wail")
    request = table.run("bob", command, faces=[11])[0]
    assert isinstance(request, ev.RollRequested) and request.against == "banshee wail"
    error = table.refused("bob", cmd.RequestRoll(RollKind.SAVE, "1d20", target=Target(12)))
    assert isinstance(error, RollError) and "against" in str(error)


def test_r6_opposed_ties_are_kept_as_rounds_and_the_winner_named() -> None:
    table = Table()
    command = cmd.RequestOpposed(CheckSide("ann", "1d20+1"), CheckSide("bob", "1d20"))
    events = table.run("ann", command, faces=[9, 10, 4, 5, 12, 2])
    assert names(events).count("OpposedCheckTied") == 2
    resolved = events[-1]
    assert isinstance(resolved, ev.CheckResolved)
    assert (resolved.winner, resolved.rounds, resolved.total, resolved.opponent_total) == (
        "ann",
        3,
        13,
        2,
    )
    sides = [(e.side, e.round) for e in events if isinstance(e, ev.DiceRolled)]
    assert sides == [(0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3)]


def test_r6_only_a_gm_may_oppose_an_npc() -> None:
    table = Table()
    command = cmd.RequestOpposed(CheckSide("ann", "1d20"), CheckSide("goblin", "1d20"))
    assert isinstance(table.refused("ann", command), PermissionDeniedError)
    gm_command = cmd.RequestOpposed(CheckSide("gm", "1d20"), CheckSide("goblin", "1d20"))
    assert names(table.run("gm", gm_command, faces=[5, 6]))[-1] == "CheckResolved"


def test_r7_advantage_on_a_plain_roll_is_refused_and_nothing_is_decided() -> None:
    table = Table()
    error = table.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "2d6", advantage=(Amount(1),)))
    assert isinstance(error, RollError)


def test_r11_a_roll_with_allowance_waits_then_rerolls_and_resolves_when_spent() -> None:
    table = Table()
    events = table.run("bob", cmd.RequestRoll(RollKind.DAMAGE, "2d6", rerolls=1), faces=[1, 5])
    assert names(events)[-1] == "DiceRolled"
    assert table.state.rolls[1].status == "awaiting_rerolls"
    events = table.run("bob", cmd.Reroll(1, (0,)), faces=[4])
    assert names(events) == ["DieRerolled", "RollResolved"]
    reroll = events[0]
    assert isinstance(reroll, ev.DieRerolled) and reroll.die.nonce == 2 and reroll.replaced == 0
    assert table.state.rolls[1].resolution.total == 9  # type: ignore[union-attr]


def test_r11_damage_reroll_cannot_be_spent_on_the_check_of_the_same_action() -> None:
    table = Table()
    check = cmd.RequestRoll(
        RollKind.CHECK,
        "1d20",
        target=Target(10),
        action_id="swing",
        rerolls=1,
        reroll_scope=RerollScope.DAMAGE,
    )
    assert names(table.run("ann", check, faces=[3]))[-1] == "CheckResolved"
    damage = cmd.RequestRoll(RollKind.DAMAGE, "1d8", action_id="swing")
    assert names(table.run("ann", damage, faces=[2]))[-1] == "DiceRolled"
    assert table.state.rolls[2].status == "awaiting_rerolls"


def test_r11_effect_allowance_is_shared_by_the_rolls_of_an_action() -> None:
    table = Table()
    table.run(
        "ann",
        cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10), action_id="a", rerolls=1),
        [4],
    )
    table.run("ann", cmd.RequestRoll(RollKind.DAMAGE, "1d8", action_id="a"), [2])
    events = table.run("ann", cmd.Reroll(2, (0,)), faces=[7])
    # The last reroll is gone: the waiting check resolves as it stands too.
    assert names(events) == ["DieRerolled", "RollResolved", "CheckResolved"]
    error = table.refused("ann", cmd.Reroll(1, (0,)))
    assert isinstance(error, RerollError) and "already resolved" in str(error)


def test_r11_spending_more_than_granted_is_refused() -> None:
    table = Table()
    table.run("bob", cmd.RequestRoll(RollKind.DAMAGE, "3d6", rerolls=1), faces=[1, 2, 3])
    error = table.refused("bob", cmd.Reroll(1, (0, 1)))
    assert isinstance(error, RerollError) and "1 left" in str(error)


def test_r11_a_second_allowance_on_the_same_action_is_refused() -> None:
    table = Table()
    table.run(
        "ann",
        cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10), action_id="a", rerolls=1),
        [4],
    )
    error = table.refused("ann", cmd.RequestRoll(RollKind.DAMAGE, "1d8", action_id="a", rerolls=2))
    assert isinstance(error, RerollError)


def test_r11_auto_reroll_lets_the_default_policy_spend_and_resolve() -> None:
    table = Table()
    table.dice.faces[2] = [5]
    command = cmd.RequestRoll(RollKind.DAMAGE, "2d6", rerolls=2, auto_reroll=True)
    events = table.run("bob", command, faces=[1, 4])
    assert names(events) == ["RollRequested", "DiceRolled", "DieRerolled", "RollResolved"]
    assert table.state.next_nonce == 3  # the request took nonce 1, the reroll nonce 2


def test_only_the_roller_may_reroll_or_accept() -> None:
    table = Table()
    table.run("bob", cmd.RequestRoll(RollKind.DAMAGE, "2d6", rerolls=1), faces=[1, 5])
    assert isinstance(table.refused("ann", cmd.Reroll(1, (0,))), PermissionDeniedError)
    assert isinstance(table.refused("ann", cmd.Accept(1)), PermissionDeniedError)
    assert names(table.run("bob", cmd.Accept(1))) == ["RollAccepted", "RollResolved"]


def test_every_request_and_reroll_takes_the_next_nonce() -> None:
    table = Table()
    table.run("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6"), [3])
    table.run("bob", cmd.RequestRoll(RollKind.DAMAGE, "1d6", rerolls=1), [2])
    table.run("bob", cmd.Reroll(2, (0,)), [5])
    table.run("gm", cmd.RequestRoll(RollKind.EFFECT, "1d6", mode=RollMode.BLIND), [4])
    assert table.dice.nonces == [1, 2, 3, 4]


def test_typed_in_faces_are_manual_and_checked_against_the_dice() -> None:
    table = Table()
    events = table.run("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(6, 6, 4, 2)))
    rolled = [e for e in events if isinstance(e, ev.DiceRolled | ev.DieExploded)]
    assert all(
        (d.source, d.epoch) == ("manual", None)
        for e in rolled
        for d in (e.dice if isinstance(e, ev.DiceRolled) else (e.die,))
    )
    assert event_as(ev.RollResolved, events[-1]).total == 18
    error = table.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "2d6", faces=(3,)))
    assert isinstance(error, ManualFacesError) and "die 2 (a d6)" in str(error)


def test_a_gm_may_forbid_typed_in_faces() -> None:
    table = Table()
    table.state.manual_dice_allowed = False
    error = table.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(3,)))
    assert isinstance(error, PermissionDeniedError)


def test_rolls_for_others_are_the_gms_and_revealing_a_blind_roll_too() -> None:
    table = Table()
    assert isinstance(
        table.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", on_behalf_of="bob")),
        PermissionDeniedError,
    )
    table.run("gm", cmd.RequestRoll(RollKind.EFFECT, "1d6", mode=RollMode.BLIND), [2])
    assert isinstance(table.refused("ann", cmd.OpenDispute(1, "hmm")), NotFoundError)
    table.run("gm", cmd.RevealRoll(1))
    assert names(table.run("ann", cmd.OpenDispute(1, "looked low"))) == ["RollDisputed"]


def test_strangers_and_ended_sessions_are_refused() -> None:
    table = Table()
    assert isinstance(
        table.refused("eve", cmd.RequestRoll(RollKind.EFFECT, "1d6")), PermissionDeniedError
    )
    table.run("gm", cmd.EndSession(table.seed))
    assert isinstance(
        table.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6")), CommandRefusedError
    )


def test_replaying_the_recorded_dice_gives_the_same_roll() -> None:
    table = Table()
    table.run(
        "ann",
        cmd.RequestRoll(RollKind.CHECK, "1d20+1d4", target=Target(12), advantage=(Amount(1),)),
        [20, 7, 4, 11, 2],
    )
    state = replay_state(table.state.rolls[1])
    assert state.total == table.state.rolls[1].resolution.total  # type: ignore[union-attr]
    assert [d.face for d in state.dice] == [20, 7, 4, 11, 2]
    assert state.total == 20 + 11 + 4 + 2


def test_amounts_and_targets_out_of_range_are_refused_in_plain_words() -> None:
    table = Table()
    huge = cmd.RequestRoll(RollKind.EFFECT, "1d6", eased=(Amount(10**20),))
    assert "between 0 and 1,000,000" in str(table.refused("ann", huge))
    with pytest.raises(RollError, match="within ±1,000,000"):
        Target(10**20)


def test_a_player_sees_neither_the_label_nor_the_npc_of_a_hidden_blind_roll() -> None:
    from diceledger.domain.session.views import roll_view

    table = Table()
    secret = cmd.RequestRoll(
        RollKind.EFFECT, "1d20", mode=RollMode.BLIND, on_behalf_of="goblin", label="sneak"
    )
    table.run("gm", secret, [12])
    view = roll_view(table.state, table.state.rolls[1], "ann")
    assert view == {
        "session_id": "s1",
        "roll_id": 1,
        "roller": "gm",
        "mode": "blind",
        "blind": True,
        "status": "hidden",
        "text": "the GM rolled blind",
    }
    assert roll_view(table.state, table.state.rolls[1], "gm")["label"] == "sneak"


def test_overlong_labels_are_refused_on_every_kind_of_roll() -> None:
    table = Table()
    label = "x" * 81
    assert "at most 80" in str(
        table.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", label=label))
    )
    opposed = cmd.RequestOpposed(CheckSide("ann", "1d20"), CheckSide("bob", "1d20"), label=label)
    assert "at most 80" in str(table.refused("ann", opposed))

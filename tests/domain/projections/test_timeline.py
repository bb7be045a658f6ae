"""The timeline and as-of replay of a hand-built session, as players and the GM see them."""

from __future__ import annotations

from datetime import timedelta

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.projections.logged import state_as_of, until
from diceledger.domain.projections.summary import standing
from diceledger.domain.projections.timeline import HIDDEN_EVENT, timeline
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.visibility import hidden_from
from tests.documents import array_at, at
from tests.domain.projections.script import START, Script


def played() -> Script:
    """gm, ann and bob: a check, an exploding damage roll, a reroll, a blind roll, a dispute."""
    script = Script.table("ann", "bob")
    script.check("ann", "1d20+3", 12, [15])  # roll 1
    script.do("bob", cmd.RequestRoll(RollKind.DAMAGE, "1d6", faces=(6, 6, 3)))  # roll 2
    script.do(
        "ann",
        cmd.RequestRoll(
            RollKind.DAMAGE, "1d6n", rerolls=1, reroll_scope=RerollScope.DAMAGE, faces=(2,)
        ),
    )
    script.do("ann", cmd.Reroll(3, (0,), faces=(5,)))  # roll 3: 2 -> 5
    script.do(
        "gm",
        cmd.RequestRoll(
            RollKind.CHECK,
            "1d20",
            target=Target(11),
            mode=RollMode.BLIND,
            on_behalf_of="bob",
            faces=(17,),
        ),
    )
    script.do("bob", cmd.OpenDispute(1, "too lucky"))
    script.do("gm", cmd.ResolveDispute(1, cmd.Ruling.UPHELD, "the die was fair"))
    return script


def texts(script: Script, viewer: str) -> list[str]:
    hidden = hidden_from(script.state, viewer)
    return [line.text for line in timeline(script.log, hidden)]


def test_every_meaningful_event_is_one_line_with_every_die() -> None:
    lines = texts(played(), "gm")
    assert lines[:3] == [
        "session 'Tomb' started; GM gm",
        "gm joined as gm",
        lines[2],
    ]
    assert lines[2].startswith("seed epoch 1 committed: ")
    assert "ann joined as player" in lines
    assert "#1 ann check 1d20+3 vs 12 [typed-in dice]" in lines
    assert "#1 dice: d20 15" in lines
    assert "#1 1d20 (15) + 3 = 18 vs 12: success (margin +6)" in lines
    assert "#1 disputed by bob: too lucky" in lines
    assert "#1 dispute ruled upheld by gm: the die was fair" in lines


def test_r12_explosions_show_as_a_growing_chain_and_r11_rerolls_as_old_to_new() -> None:
    lines = texts(played(), "ann")
    assert "#2 explosion: d6 6 -> d6 6" in lines
    assert "#2 explosion: d6 6 -> d6 6 -> d4 3" in lines
    assert "#3 reroll: d6 2 -> d6 5" in lines


def test_players_see_an_unrevealed_blind_roll_only_as_the_gm_rolling_blind() -> None:
    script = played()
    player = [
        line for line in timeline(script.log, hidden_from(script.state, "bob")) if line.roll_id == 4
    ]
    assert [line.text for line in player][0] == "#4 the GM rolled blind"
    assert all(line.hidden and line.detail == {"roll_id": 4} for line in player)
    assert not any("17" in line.text for line in player)
    gm = [
        line.text
        for line in timeline(script.log, hidden_from(script.state, "gm"))
        if line.roll_id == 4
    ]
    assert "#4 dice: d20 17" in gm


def test_a_player_cannot_tell_from_event_types_that_a_hidden_die_exploded() -> None:
    script = Script.table("ann")
    blind = cmd.RequestRoll(
        RollKind.CHECK,
        "1d20",
        target=Target(11),
        mode=RollMode.BLIND,
        on_behalf_of="orc",
        faces=(20, 4),
    )
    script.do("gm", blind)  # roll 1: the d20 shows 20 and explodes (R12)

    def events(viewer: str) -> list[str]:
        lines = timeline(script.log, hidden_from(script.state, viewer))
        return [line.event for line in lines if line.roll_id == 1]

    player = events("ann")
    assert player == ["RollRequested"] + [HIDDEN_EVENT] * (len(player) - 1)
    assert "DieExploded" in events("gm") and len(events("gm")) == len(player)


def test_a_revealed_blind_roll_is_shown_in_full_from_its_start() -> None:
    script = played()
    script.do("gm", cmd.RevealRoll(4))
    lines = texts(script, "bob")
    assert "#4 dice: d20 17" in lines
    assert lines[-1] == "#4 blind roll revealed by gm"


def test_as_of_a_position_shows_members_open_rolls_and_totals_then() -> None:
    script = played()
    waiting = next(
        i for i in script.log if isinstance(i.event, ev.DiceRolled) and i.event.roll_id == 3
    )
    state = state_as_of(script.log, until_position=waiting.position)
    view = standing(state, hidden_from(script.state, "bob"))
    assert [at(m, "name") for m in array_at(view, "members")] == ["gm", "ann", "bob"]
    assert view["open_rolls"] == [
        {
            "roll_id": 3,
            "player": "ann",
            "kind": "damage",
            "total_so_far": 2,
            "waits_for_rerolls": True,
        }
    ]
    assert at(view, "totals", "ann") == {
        "rolls": 1,
        "checks_made": 1,
        "checks_won": 1,
        "sum_of_totals": 18,
    }
    assert at(view, "totals", "bob", "sum_of_totals") == 15


def test_as_of_a_time_stops_at_the_last_event_recorded_by_then() -> None:
    script = played()
    # Commands are a minute apart: start, two joins, then roll 1 at minute 4.
    before_roll = START + timedelta(minutes=3, seconds=30)
    shown = list(until(script.log, at=before_roll))
    assert {i.actor for i in shown} == {"gm", "ann", "bob"}
    assert state_as_of(script.log, at=before_roll).rolls == {}
    assert len(state_as_of(script.log, at=START + timedelta(minutes=4)).rolls) == 1


def test_a_player_as_of_view_leaves_out_hidden_rolls_and_says_how_many() -> None:
    script = played()
    view = standing(script.state, hidden_from(script.state, "ann"))
    assert view["hidden_rolls"] == 1
    assert at(view, "totals", "bob", "rolls") == 1
    assert (
        at(standing(script.state, hidden_from(script.state, "gm")), "totals", "bob", "rolls") == 2
    )


def test_r6_an_npcs_later_dice_name_their_typist_while_the_session_has_one_gm() -> None:
    # GMs only ever join: with one GM, they typed every NPC die; once a co-GM has joined,
    # the session's state no longer tells which of them typed a later round's.
    for co_gm, typist in ((False, "gm"), (True, "a GM")):
        script = Script.table("ann")
        if co_gm:
            script.do("gm", cmd.JoinSession("vera", as_gm=True))
        duel = cmd.RequestOpposed(
            ev.CheckSide("gm", "1d20"),
            ev.CheckSide("orc", "1d20"),
            rerolls=1,
            opponent_rerolls=1,
            faces=(7, 7),
        )
        script.do("gm", duel)
        script.do("gm", cmd.Accept(1))
        script.do("gm", cmd.Accept(1, faces=(5, 12)))  # the tie's fresh round
        assert texts(script, "gm")[-1] == f"#1 orc, round 2, dice: d20 12 (typed in by {typist})"


def test_r6_r11_an_opposed_checks_rerolls_and_accepts_name_their_side_and_round() -> None:
    script = Script.table("ann", "bob")
    # The GM types in both sides' dice only because the other side is an NPC (R6).
    duel = cmd.RequestOpposed(
        ev.CheckSide("gm", "1d20+2"),
        ev.CheckSide("orc", "1d20"),
        rerolls=1,
        opponent_rerolls=1,
        faces=(3, 12),
    )
    script.do("gm", duel)
    script.do("gm", cmd.Reroll(1, (0,), faces=(10,)))
    script.do("gm", cmd.Accept(1, faces=(9, 4)))
    lines = texts(script, "gm")
    assert lines[-8:] == [
        "#1 opposed: gm 1d20+2 vs orc 1d20 [1 effect rerolls, orc 1 rerolls, typed-in dice]",
        "#1 gm, round 1, dice: d20 3 (typed in by gm)",
        "#1 orc, round 1, dice: d20 12 (typed in by gm)",
        "#1 gm, round 1, reroll: d20 3 -> d20 10 (typed in by gm)",
        "#1 orc, round 1, accepted by gm (1 rerolls left)",
        "#1 round 1 tied at 12; both roll again",
        "#1 gm, round 2, dice: d20 9 (typed in by gm)",
        "#1 orc, round 2, dice: d20 4 (typed in by gm)",  # the session's one GM
    ]
    # The orc's reroll carries into round 2, so the check waits for its side there.
    (waiting,) = array_at(standing(script.state), "open_rolls")
    assert waiting == {
        "roll_id": 1,
        "player": "gm",
        "kind": "opposed",
        "total_so_far": 11,
        "waits_for_rerolls": True,
    }

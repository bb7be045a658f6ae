"""Per-player statistics against numbers worked out by hand on small hand-built sessions."""

from __future__ import annotations

import math

import pytest

from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import CheckDie, RerollScope, RollKind, RollSpec, Target
from diceledger.domain.odds import opposed_odds
from diceledger.domain.projections.logged import Logged
from diceledger.domain.projections.report import (
    ACROSS_SESSIONS,
    PlayerReport,
    player_reports,
    visible_counters,
)
from diceledger.domain.projections.statistics import StatisticsFold, Tally, fold_statistics
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.events import CheckSide
from diceledger.domain.session.modes import RollMode
from tests.domain.projections.script import Script, interleave


def reports(log: list[Logged], viewer: str, **filters: str) -> dict[tuple[str, str], PlayerReport]:
    tally = fold_statistics(log)
    found = player_reports(
        visible_counters(tally.counters.items(), tally.members, viewer), **filters
    )
    return {(r.session_id, r.player): r for r in found}


def ann_three_checks() -> Script:
    # 1d20 against 11: P = 10/20 whatever explodes, so each check has p = 1/2.
    script = Script.table("ann", "bob")
    for face in (15, 3, 12):
        script.check("ann", "1d20", 11, [face])
    return script


def test_luck_is_observed_minus_the_sum_of_exact_chances_with_its_z_score() -> None:
    ann = reports(ann_three_checks().log, "bob")[("tomb-1a2b3c", "ann")]
    outcomes, luck = ann.groups["outcomes"], ann.groups["luck"]
    assert (outcomes["checks_made"], outcomes["checks_won"]) == (3, 2)
    assert outcomes["success_rate"] == pytest.approx(2 / 3, abs=1e-6)
    # expected = 3 * 1/2; variance = 3 * 1/4; z = (2 - 1.5) / sqrt(0.75)
    assert luck["expected"] == 1.5
    assert luck["luck"] == 0.5
    assert luck["z_score"] == pytest.approx(0.5 / math.sqrt(0.75), abs=1e-6)


def test_chi_square_of_six_typed_in_d6_faces_matches_the_hand_computation() -> None:
    script = Script.table("ann", "bob")
    script.do("bob", cmd.RequestRoll(RollKind.DAMAGE, "6d6n", faces=(1, 1, 2, 3, 4, 6)))
    bob = reports(script.log, "ann")[("tomb-1a2b3c", "bob")]
    (d6,) = bob.dice
    assert d6.faces == (2, 1, 1, 1, 0, 1)
    # Expected 1 per face: (2-1)^2 + (0-1)^2 = 2 with 5 degrees of freedom.
    assert d6.figures["chi_square"] == 2.0
    assert d6.figures["df"] == 5
    assert d6.figures["p_value"] == pytest.approx(0.849145, abs=1e-6)
    assert d6.figures["mean"] == pytest.approx(17 / 6, abs=1e-6)
    assert d6.figures["fair_mean"] == 3.5
    assert d6.figures["too_few"] == 1  # 6 rolls, fewer than 5 per face
    assert bob.groups["dice_source"] == {"seeded": 0, "manual": 6}


def test_r12_explosions_count_every_added_die_and_the_longest_chain() -> None:
    script = Script.table("ann", "bob")
    script.do(
        "bob", cmd.RequestRoll(RollKind.DAMAGE, "1d6", faces=(6, 6, 3))
    )  # d6 6 -> d6 6 -> d4 3
    script.do("bob", cmd.RequestRoll(RollKind.DAMAGE, "1d6", faces=(6, 1)))
    bob = reports(script.log, "bob")[("tomb-1a2b3c", "bob")]
    assert bob.groups["explosions"] == {"count": 3, "longest_chain": 2}
    assert {d.sides: d.faces for d in bob.dice} == {4: (0, 0, 1, 0), 6: (1, 0, 0, 0, 0, 3)}


def test_r11_rerolls_spent_and_the_total_they_gained() -> None:
    script = Script.table("ann", "bob")
    script.do(
        "bob",
        cmd.RequestRoll(
            RollKind.DAMAGE, "1d6n+1", rerolls=1, reroll_scope=RerollScope.DAMAGE, faces=(2,)
        ),
    )
    script.do("bob", cmd.Reroll(script.last_roll(), (0,), faces=(5,)))
    rerolls = reports(script.log, "bob")[("tomb-1a2b3c", "bob")].groups["rerolls"]
    assert rerolls == {"spent": 1, "gain": 3, "mean_gain": 3.0}


def test_a_voided_roll_is_left_out_and_counted_and_the_dispute_is_the_disputers() -> None:
    script = ann_three_checks()
    failed = 2  # the check that showed 3
    script.do("bob", cmd.OpenDispute(failed, "the die fell off the table"))
    script.do("gm", cmd.ResolveDispute(failed, cmd.Ruling.VOIDED))
    found = reports(script.log, "bob")
    ann, bob = found[("tomb-1a2b3c", "ann")], found[("tomb-1a2b3c", "bob")]
    assert (ann.groups["outcomes"]["made"], ann.groups["outcomes"]["won"]) == (2, 2)
    assert ann.groups["luck"]["expected"] == 1.0
    assert ann.groups["luck"]["z_score"] == pytest.approx(1 / math.sqrt(0.5), abs=1e-6)
    assert ann.groups["excluded"]["voided"] == 1
    assert bob.groups["disputes"] == {"raised": 1, "upheld": 0, "voided": 1}


def test_an_upheld_dispute_keeps_the_roll() -> None:
    script = ann_three_checks()
    script.do("bob", cmd.OpenDispute(1, "suspicious"))
    script.do("gm", cmd.ResolveDispute(1, cmd.Ruling.UPHELD))
    found = reports(script.log, "ann")
    assert found[("tomb-1a2b3c", "ann")].groups["outcomes"]["made"] == 3
    assert found[("tomb-1a2b3c", "bob")].groups["disputes"]["upheld"] == 1


def test_blind_rolls_stay_out_of_a_players_view_until_revealed_and_the_gm_sees_them() -> None:
    script = ann_three_checks()
    script.do(
        "gm",
        cmd.RequestRoll(
            RollKind.CHECK,
            "1d20",
            target=Target(11),
            mode=RollMode.BLIND,
            on_behalf_of="ann",
            faces=(18,),
        ),
    )
    blind = script.last_roll()
    for viewer, made, hidden in (("ann", 3, 1), ("bob", 3, 1), ("gm", 4, 0)):
        ann = reports(script.log, viewer)[("tomb-1a2b3c", "ann")]
        assert ann.groups["outcomes"]["made"] == made, viewer
        assert ann.groups["excluded"]["hidden"] == hidden, viewer
    script.do("gm", cmd.RevealRoll(blind))
    ann = reports(script.log, "bob")[("tomb-1a2b3c", "ann")]
    assert (ann.groups["outcomes"]["made"], ann.groups["excluded"]["hidden"]) == (4, 0)


def test_a_players_own_gm_and_self_rolls_count_in_their_own_figures_only() -> None:
    script = ann_three_checks()
    for mode in (RollMode.GM, RollMode.SELF):
        check = cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(11), mode=mode, faces=(18,))
        script.do("ann", check)
    # ann sees both of hers; bob sees neither; a GM sees the gm roll, not the self roll.
    for viewer, made, hidden in (("ann", 5, 0), ("bob", 3, 2), ("gm", 4, 1)):
        ann = reports(script.log, viewer)[("tomb-1a2b3c", "ann")]
        assert ann.groups["outcomes"]["made"] == made, viewer
        assert ann.groups["excluded"]["hidden"] == hidden, viewer
        assert ann.groups["luck"]["rated"] == made, viewer
    script.do("gm", cmd.RevealRoll(4))
    for viewer, made in (("ann", 5), ("bob", 4), ("gm", 4)):
        assert reports(script.log, viewer)[("tomb-1a2b3c", "ann")].groups["outcomes"]["made"] == (
            made
        )


def test_a_gms_blind_roll_for_a_player_is_no_part_of_their_luck() -> None:
    script = ann_three_checks()
    blind = cmd.RequestRoll(
        RollKind.CHECK, "1d20", target=Target(11), mode=RollMode.BLIND, on_behalf_of="ann",
        faces=(18,),
    )  # fmt: skip
    script.do("gm", blind)
    ann = reports(script.log, "gm")[("tomb-1a2b3c", "ann")]
    assert ann.groups["outcomes"]["made"] == 4  # the GM sees the check was made
    assert ann.groups["luck"]["rated"] == 3  # but ann never saw it: not her luck


def test_r6_opposed_checks_count_for_both_members_and_not_for_npcs() -> None:
    script = Script.table("ann", "bob")
    # ann types in her own die; bob's is the server's (a fixed seed here: 12, at nonce 1).
    duel = cmd.RequestOpposed(CheckSide("ann", "1d20"), CheckSide("bob", "1d20"), faces=(14,))
    script.do("ann", duel)
    assert bobs_first_die(script) == 12
    script.do(
        "gm", cmd.RequestOpposed(CheckSide("bob", "1d20"), CheckSide("orc", "1d20"), faces=(4, 7))
    )
    found = reports(script.log, "gm")
    ann, bob = found[("tomb-1a2b3c", "ann")], found[("tomb-1a2b3c", "bob")]
    assert (ann.groups["outcomes"]["opposed_made"], ann.groups["outcomes"]["opposed_won"]) == (1, 1)
    assert (bob.groups["outcomes"]["opposed_made"], bob.groups["outcomes"]["opposed_won"]) == (2, 0)
    # Two equal sides: each wins with probability 1/2 in the end.
    assert ann.groups["luck"]["expected"] == 0.5
    assert bob.groups["luck"]["expected"] == 1.0
    assert ("tomb-1a2b3c", "orc") not in found


def test_r6_r11_each_side_of_an_opposed_check_counts_its_own_rerolls_and_gain() -> None:
    script = Script.table("ann", "bob")
    duel = cmd.RequestOpposed(
        CheckSide("ann", "1d20+2"),
        CheckSide("bob", "1d20"),
        rerolls=1,
        opponent_rerolls=2,
        faces=(3,),
    )
    script.do("ann", duel)  # bob's die is the server's: 12 from the fixed seed
    assert bobs_first_die(script) == 12
    script.do("ann", cmd.Reroll(1, (0,), faces=(10,)))  # 5 -> 12
    script.do("bob", cmd.Reroll(1, (0,), faces=(8,)))  # 12 -> 8
    script.do("bob", cmd.Accept(1))  # ann wins, 12 to 8
    found = reports(script.log, "gm")
    ann, bob = found[("tomb-1a2b3c", "ann")], found[("tomb-1a2b3c", "bob")]
    assert ann.groups["rerolls"] == {"spent": 1, "gain": 7, "mean_gain": 7.0}
    assert bob.groups["rerolls"] == {"spent": 1, "gain": -4, "mean_gain": -4.0}
    # Expected wins come from the odds with both allowances spent by the default policy.
    spec = duel_specs("1d20+2", "1d20")
    win = opposed_odds(*spec, 1, 2).win
    assert ann.groups["luck"]["expected"] == round(float(win), 6)
    assert bob.groups["luck"]["expected"] == round(float(1 - win), 6)


def test_r6_r11_rerolls_a_side_spends_in_several_rounds_all_count() -> None:
    script = Script.table("ann", "bob")
    # The GM rolls ann's side against an NPC, so the GM types in both sides' dice (R6).
    duel = cmd.RequestOpposed(
        CheckSide("ann", "1d20+2"), CheckSide("orc", "1d20"), rerolls=2, faces=(3, 12)
    )
    script.do("gm", duel)
    script.do("gm", cmd.Reroll(1, (0,), faces=(10,)))  # 5 -> 12, a tie so far
    script.do("gm", cmd.Accept(1, faces=(4, 9)))  # tied: round 2, 6 against 9
    script.do("gm", cmd.Reroll(1, (0,), faces=(9,)))  # 6 -> 11: ann wins
    ann = reports(script.log, "gm")[("tomb-1a2b3c", "ann")]
    assert ann.groups["rerolls"] == {"spent": 2, "gain": 12, "mean_gain": 6.0}
    assert ann.groups["outcomes"]["opposed_won"] == 1


def bobs_first_die(script: Script) -> int:
    """Return the face of the first die of the other side of roll 1."""
    return next(d.face for e in script.state.rolls[1].dice if e.side == 1 for d in die_of(e))


def die_of(event: ev.DiceRolled | ev.DieExploded | ev.DieRerolled) -> tuple[ev.DieRecord, ...]:
    return event.dice if isinstance(event, ev.DiceRolled) else (event.die,)


def duel_specs(first: str, second: str) -> tuple[RollSpec, RollSpec]:
    return RollSpec(parse(first), CheckDie()), RollSpec(parse(second), CheckDie())


def test_across_sessions_sums_each_session_in_the_viewers_scope() -> None:
    first = ann_three_checks()
    second = Script.table("ann", session_id="crypt-9f8e7d")
    second.check("ann", "1d20", 11, [20, 4])  # explodes: 24, a success
    found = reports(interleave(first, second), "ann")
    overall = found[(ACROSS_SESSIONS, "ann")]
    assert overall.groups["outcomes"]["made"] == 4
    assert overall.groups["outcomes"]["won"] == 3
    assert overall.groups["luck"]["expected"] == 2.0
    only = reports(interleave(first, second), "ann", session_id="crypt-9f8e7d")
    assert set(only) == {("crypt-9f8e7d", "ann")}


def test_folding_in_batches_with_evicted_sessions_gives_the_one_pass_counters() -> None:
    first, second = ann_three_checks(), Script.table("bob", session_id="crypt-9f8e7d")
    for face in (4, 6, 6, 5, 1):
        explodes = (face, 2) if face == 6 else (face,)
        second.do("bob", cmd.RequestRoll(RollKind.DAMAGE, "1d6", faces=explodes))
        first.check("ann", "1d20+2", 13, [face * 3])
    first.do("bob", cmd.OpenDispute(1, "odd"))
    first.do("gm", cmd.ResolveDispute(1, cmd.Ruling.VOIDED))
    log = interleave(first, second)
    whole = fold_statistics(log).nonzero()

    def history(session_id: str, version: int) -> list[Logged]:
        return [i for i in log if i.stream_id == session_id and i.version <= version]

    for batch in (1, 2, 5):
        total = Tally()
        for start in range(0, len(log), batch):
            # A fresh fold per batch, as a new process would start: it reloads sessions.
            fold, tally = StatisticsFold(history, max_sessions=1), Tally()
            for item in log[start : start + batch]:
                fold.apply(item, tally)
            total.counters.update(tally.counters)
        assert total.nonzero() == whole

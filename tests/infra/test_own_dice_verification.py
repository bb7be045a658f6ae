"""verify on opposed checks whose other side rolls its own dice (R6): each command decided again.

The other member's dice come from a command of their own, under a nonce of its own, so
the log shows them apart from the request's; verify reads that command back from them.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import DiceledgerError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.codec.events import from_record
from tests.infra.forging import rechain
from tests.infra.support import memory_services
from tests.infra.test_opposed_verification import index_of, play

# ann's 1d20+2 against bob's 1d20 with no explosions: bob's typed 1 loses to anything.
SIDES = (CheckSide("ann", "1d20+2"), CheckSide("bob", "1d20"))
OWN = cmd.RequestOpposed(*SIDES, exploding=False, opponent_rolls=True)


def test_r6_a_check_whose_other_member_typed_their_own_dice_verifies() -> None:
    records = play(
        ("ann", cmd.RequestOpposed(*SIDES, exploding=False, opponent_rolls=True, faces=(6,))),
        ("bob", cmd.RollSide(1, (8,))),  # 8 against 8, a tie: ann's next round is the server's
        ("bob", cmd.RollSide(1, (1,), cmd.Turn(1, 2))),
    )
    bobs = [r for r in records if r.event_type == "DiceRolled" and r.data["side"] == 1]
    assert [(r.data["round"], r.data["dice"][0]["source"]) for r in bobs] == [
        (1, "manual"),
        (2, "manual"),
    ]
    report = verify_records(records, from_record)
    assert report.ok, report.first_failure
    assert report.manual_dice == 3


def test_r6_a_side_the_other_member_let_the_server_roll_verifies_from_the_seed() -> None:
    records = play(("ann", OWN), ("bob", cmd.RollSide(1)))
    report = verify_records(records, from_record)
    assert report.ok, report.first_failure
    assert report.dice_verified >= 2 and report.manual_dice == 0


def test_r6_the_end_rolls_a_side_still_waiting_for_its_member_and_verifies() -> None:
    records = play(("ann", OWN))
    ended = records[index_of(records, "SessionEnded") - 1 :]
    assert ended  # the end rolled bob's side from the seed before its reveal
    side = index_of(records, "DiceRolled", side=1)
    assert records[side].data["dice"][0]["source"] == "seeded"
    report = verify_records(records, from_record)
    assert report.ok, report.first_failure


def test_r6_dropping_the_other_sides_dice_from_a_whole_check_does_not_make_it_theirs() -> None:
    # ann's 20 + 2 beats every face of bob's seeded d20: round 1 resolves, never ties.
    records = play(("ann", cmd.RequestOpposed(*SIDES, exploding=False, faces=(20,))), end=False)
    at = index_of(records, "DiceRolled", side=1)
    forged = rechain([*records[:at], *records[at + 1 :]], at)
    report = verify_records(forged, from_record)
    assert not report.ok
    out_of_place = "CheckResolved of roll 1 out of place"
    assert any(out_of_place in failure.reason for failure in report.failures)


# What may happen while an own-dice check is open, in any order: the property below plays
# a drawn run of these (a refused one appends nothing) and holds the log to verify.
STEPS = st.sampled_from(
    [
        ("bob", cmd.RollSide(1)),
        ("bob", cmd.RollSide(1, (1,))),
        ("bob", cmd.RollSide(1, (20,))),
        ("bob", cmd.RollSide(1, (4,))),
        ("ann", cmd.Reroll(1, (0,))),
        ("bob", cmd.Reroll(1, (0,))),
        ("ann", cmd.Accept(1)),
        ("bob", cmd.Accept(1)),
        ("ann", cmd.Reroll(1, (0,), (3, 6))),
        ("ann", cmd.Accept(1, (7,))),
        ("bob", cmd.Reroll(1, (0,), (9,))),
        ("ann", cmd.RequestOpposed(*SIDES, opponent_rolls=True, faces=(5,))),
        ("bob", cmd.RollSide(2, (5,))),
        ("gm", cmd.RequestRoll(RollKind.EFFECT, "1d20", mode=RollMode.BLIND, on_behalf_of="orc")),
        ("ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10))),
    ]
)


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(STEPS, max_size=8),
    rerolls=st.integers(0, 2),
    vs_rerolls=st.integers(0, 2),
    end=st.booleans(),
)
def test_r6_every_honest_run_of_an_own_dice_check_verifies_whatever_its_dice(
    steps: list[tuple[str, cmd.Command]], rerolls: int, vs_rerolls: int, end: bool
) -> None:
    # The seed is the vault's own, fresh every run: what is held holds for every die.
    request = cmd.RequestOpposed(
        *SIDES, rerolls=rerolls, opponent_rerolls=vs_rerolls, opponent_rolls=True
    )
    services = memory_services()
    sessions = services.sessions
    sid = sessions.start("Duel table", "gm").session_id
    sessions.execute(sid, "ann", cmd.JoinSession("ann", "ann's words"))
    sessions.execute(sid, "bob", cmd.JoinSession("bob"))
    sessions.execute(sid, "ann", request)
    for actor, command in steps:
        try:
            sessions.execute(sid, actor, command)
        except DiceledgerError:
            continue  # refused: nothing appended
    if end:
        sessions.end(sid, "gm")
    records = list(services.store.read_stream(sid))
    report = verify_records(records, from_record)
    assert report.ok, (report.first_failure, [r.event_type for r in records])

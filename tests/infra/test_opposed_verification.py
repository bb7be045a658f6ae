"""verify on opposed checks whose sides reroll: every die derived again, every turn decided again.

Honest logs played through the service must verify; forged ones (hash chain rebuilt, as a
careful forger would) must fail where the forgery is, for the rule it breaks.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from diceledger.domain.dice.request import RollKind
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import editions
from diceledger.domain.session.events import CheckSide
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.codec.events import from_record
from tests.infra.forging import rechain
from tests.infra.support import memory_services

# bob's die is the server's (R6: ann types in only her own side's) and his side is one d20,
# his own; the checks roll without explosions, so his dice keep their indexes whatever
# they show.
DUEL = (CheckSide("ann", "1d20+2"), CheckSide("bob", "1d20"))


def play(*commands: tuple[str, cmd.Command], end: bool = True) -> list[RecordedEvent]:
    """Play the commands on a fresh table of ann and bob; return the session's records."""
    services = memory_services()
    sessions = services.sessions
    sid = sessions.start("Duel table", "gm").session_id
    sessions.execute(sid, "ann", cmd.JoinSession("ann", "ann's words"))
    sessions.execute(sid, "bob", cmd.JoinSession("bob"))
    for actor, command in commands:
        sessions.execute(sid, actor, command)
    if end:
        sessions.end(sid, "gm")
    return list(services.store.read_stream(sid))


def index_of(records: list[RecordedEvent], event_type: str, **data: Any) -> int:
    return next(
        i
        for i, r in enumerate(records)
        if r.event_type == event_type and all(r.data.get(k) == v for k, v in data.items())
    )


def test_seeded_rerolls_of_both_sides_are_derived_again_from_the_seed() -> None:
    records = play(
        ("ann", cmd.RequestOpposed(*DUEL, exploding=False, rerolls=2, opponent_rerolls=2)),
        ("ann", cmd.Reroll(1, (0,))),
        ("ann", cmd.Accept(1)),
        ("bob", cmd.Reroll(1, (0,))),
    )
    report = verify_records(records, from_record)
    assert report.ok, report.first_failure
    seeded = sum(
        len(r.data["dice"]) if r.event_type == "DiceRolled" else 1
        for r in records
        if r.event_type in ("DiceRolled", "DieExploded", "DieRerolled")
    )
    assert report.dice_verified == seeded
    assert {r.data["side"] for r in records if r.event_type == "DieRerolled"} == {0, 1}


def test_a_forged_face_on_the_other_sides_reroll_fails_its_derivation() -> None:
    records = play(
        ("ann", cmd.RequestOpposed(*DUEL, exploding=False, opponent_rerolls=1)),
        ("bob", cmd.Reroll(1, (0,))),
    )
    at = index_of(records, "DieRerolled", side=1)
    die = records[at].data["die"]
    forged = {**records[at].data, "die": {**die, "face": die["face"] % 20 + 1}}
    report = verify_records(
        rechain([*records[:at], replace(records[at], data=forged), *records[at + 1 :]], at),
        from_record,
    )
    assert not report.ok
    assert any(f.stream_version == at + 1 and "seed gives" in f.reason for f in report.failures)


def test_r11_a_forged_reroll_beyond_a_sides_allowance_fails_verify() -> None:
    # Bob holds one reroll and spends it; the check resolves. A forger adds a second.
    records = play(
        ("ann", cmd.RequestOpposed(*DUEL, exploding=False, opponent_rerolls=1, faces=(15,))),
        ("bob", cmd.Reroll(1, (0,), faces=(10,))),
        end=False,
    )
    assert verify_records(records, from_record).ok
    first = index_of(records, "DieRerolled", side=1)
    spent = records[first].data
    second = {
        **spent,
        "die": {**spent["die"], "index": 2, "parent": 1, "face": 19},
        "replaced": 1,
    }
    extra = replace(records[first], event_id=str(uuid.uuid4()), data=second)
    resolved = records[first + 1]
    won = {
        **resolved.data,
        "opponent_total": 19,
        "winner": "bob",
        "success": False,
        "margin": -2,
        "detail": "ann 17 vs bob 19",
    }
    forged = rechain(
        [*records[: first + 1], extra, replace(resolved, data=won), *records[first + 2 :]],
        first + 1,
    )
    report = verify_records(forged, from_record)
    assert not report.ok
    failure = report.first_failure
    assert failure is not None and failure.stream_version == first + 1
    assert "DieRerolled breaks the rules: 2 rerolls asked, 1 left" in failure.reason
    reasons = " ".join(f.reason for f in report.failures)
    assert "bob's side rerolled 2 dice, its allowance is 1" in reasons


def test_r11_an_accept_by_the_other_sides_player_fails_verify() -> None:
    records = play(
        (
            "ann",
            cmd.RequestOpposed(*DUEL, exploding=False, rerolls=1, opponent_rerolls=1, faces=(15,)),
        ),
        ("ann", cmd.Accept(1)),
        ("bob", cmd.Accept(1)),
        ("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(2,))),
        end=False,
    )
    at = index_of(records, "RollAccepted", side=1)
    forged = rechain(
        [
            *records[:at],
            replace(records[at], data={**records[at].data, "by": "ann"}),
            *records[at + 1 :],
        ],
        at,
    )
    report = verify_records(forged, from_record)
    failure = report.first_failure
    assert failure is not None and failure.stream_version == at + 1
    assert "waits for bob's side; only bob may accept it" in failure.reason


def test_r14_the_other_side_rerolling_before_the_request_side_fails_verify() -> None:
    records = play(
        (
            "ann",
            cmd.RequestOpposed(*DUEL, exploding=False, rerolls=1, opponent_rerolls=1, faces=(15,)),
        ),
        ("ann", cmd.Accept(1)),
        ("bob", cmd.Reroll(1, (0,), faces=(9,))),
        end=False,
    )
    # Drop ann's accept: bob's reroll now comes while it is still ann's turn.
    at = index_of(records, "RollAccepted", side=0)
    forged = rechain([*records[:at], *records[at + 1 :]], at)
    report = verify_records(forged, from_record)
    failure = report.first_failure
    assert failure is not None and failure.stream_version == at + 1
    assert "waits for ann's side; only ann may reroll it" in failure.reason


def test_the_end_of_a_session_with_a_tied_waiting_check_verifies() -> None:
    records = play(
        # The GM types in both sides' dice: the other side is an NPC's (R6).
        (
            "gm",
            cmd.RequestOpposed(
                CheckSide("gm", "1d20+2"),
                CheckSide("orc", "1d20"),
                rerolls=1,
                opponent_rerolls=1,
                faces=(10, 12),
            ),
        )
    )
    first = index_of(records, "RollAccepted")
    assert [r.event_type for r in records[first : first + 4]] == [
        "RollAccepted",
        "RollAccepted",
        "OpposedCheckTied",
        "DiceRolled",
    ]
    assert [r.data["by"] for r in records[first : first + 2]] == ["gm", "gm"]
    (die,) = records[first + 3].data["dice"]
    request = records[index_of(records, "RollRequested")].data
    assert (die["source"], die["nonce"]) == ("seeded", request["nonce"] + 1)
    report = verify_records(records, from_record)
    assert report.ok, report.first_failure
    assert report.dice_verified >= 2  # the fresh rounds, drawn from the seed


def downgraded(records: list[RecordedEvent]) -> list[RecordedEvent]:
    """Rewrite the log as release 1 stored it: version 1 requests, rerolls and accepts."""
    old: list[RecordedEvent] = []
    for record in records:
        data = dict(record.data)
        if record.event_type == "RollRequested":
            del data["opponent_rerolls_granted"], data["rules_edition"]
        elif record.event_type in ("DieRerolled", "RollAccepted"):
            del data["side"], data["round"]
        else:
            old.append(record)
            continue
        old.append(replace(record, schema_version=1, data=data))
    return rechain(old)


def test_a_version_1_opposed_check_in_an_action_with_rerolls_left_still_verifies() -> None:
    # Release 1 resolved every opposed check at once, even in an action with rerolls left.
    # Its rules were the first edition's: the requester typed in both sides' faces.
    first = editions.FIRST
    check = cmd.RequestRoll(
        RollKind.EFFECT, "1d6", action_id="grab", rerolls=2, faces=(2,), rules_edition=first
    )
    sides = (CheckSide("ann", "1d20+30"), CheckSide("bob", "1d20n"))
    legacy = cmd.RequestOpposed(
        *sides, action_id="grab", opponent_rerolls=None, faces=(3, 9), rules_edition=first
    )
    records = downgraded(play(("ann", check), ("ann", cmd.Accept(1)), ("ann", legacy), end=False))
    assert {r.schema_version for r in records if r.event_type == "RollRequested"} == {1}
    report = verify_records(records, from_record)
    assert report.ok, report.first_failure
    # Read as version 2 with an allowance of 0, the same check would have had to wait.
    at = index_of(records, "RollRequested", roll_id=2)
    as_new = replace(
        records[at], schema_version=2, data={**records[at].data, "opponent_rerolls_granted": 0}
    )
    relabelled = rechain([*records[:at], as_new, *records[at + 1 :]], at)
    assert not verify_records(relabelled, from_record).ok


def test_a_die_cut_from_the_end_of_a_command_is_named_where_it_is_missing() -> None:
    # The chain check and the rules name the same event: the one the cut die stood before.
    records = play(("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(6, 2))), end=False)
    at = index_of(records, "DieExploded")
    cut = rechain([*records[:at], *records[at + 1 :]], at)
    report = verify_records(cut, from_record)
    assert report.first_failure is not None and report.first_failure.stream_version == at + 1
    missing = "RollRequested: the rules draw die 2 (a d6) typed in, the log has none"
    assert [f.stream_version for f in report.failures if f.reason == missing] == [at + 1]

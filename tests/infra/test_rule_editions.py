"""Requests keep the edition of the rules they were decided under, and verify holds each to it.

A log an older release wrote honestly (RollRequested version 4, the first edition) verifies
although today's rules refuse what its requests did: a player typed in both sides' faces,
gave the other member's side a MOD as a number, Disadvantage and a d4. The same requests
recorded as of the second edition fail at the rule they break; and a session cannot go
back to the first edition once a request of the second is in its log (R6).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from diceledger.domain.dice.request import RollKind
from diceledger.domain.errors import RollError
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import editions
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.codec.events import from_record
from tests.infra.forging import rechain
from tests.infra.support import memory_services

# What the first edition let ann choose for bob: his dice, his MOD and his Disadvantage.
BOBS_SIDE = CheckSide("bob", "1d4+5", disadvantage=(Amount(1, "mud"),))
# ann's 37 beats any of bob's 1d4+5, so the check resolves in one round.
FIRST_EDITION_DUEL = cmd.RequestOpposed(
    CheckSide("ann", "1d20+30"), BOBS_SIDE, faces=(7, 2, 1), rules_edition=editions.FIRST
)


def play(*commands: tuple[str, cmd.Command]) -> list[RecordedEvent]:
    """Play the commands on a fresh table of ann and bob; return the ended session's log."""
    services = memory_services()
    sessions = services.sessions
    sid = sessions.start("Old table", "gm").session_id
    sessions.execute(sid, "ann", cmd.JoinSession("ann"))
    sessions.execute(sid, "bob", cmd.JoinSession("bob"))
    for actor, command in commands:
        sessions.execute(sid, actor, command)
    sessions.end(sid, "gm")
    return list(services.store.read_stream(sid))


def as_version_4(records: list[RecordedEvent]) -> list[RecordedEvent]:
    """Rewrite the requests as an older release stored them: version 4, with no edition."""
    old = []
    for record in records:
        if record.event_type == "RollRequested":
            data = {k: v for k, v in record.data.items() if k != "rules_edition"}
            record = replace(record, schema_version=4, data=data)
        old.append(record)
    return rechain(old)


def with_edition(records: list[RecordedEvent], roll_id: int, edition: int) -> list[RecordedEvent]:
    """Relabel one request's edition, the chain rebuilt as a careful forger would."""
    at = next(
        i
        for i, r in enumerate(records)
        if r.event_type == "RollRequested" and r.data["roll_id"] == roll_id
    )
    relabelled = replace(records[at], data={**records[at].data, "rules_edition": edition})
    return rechain([*records[:at], relabelled, *records[at + 1 :]], at)


def test_r6_a_log_of_the_first_edition_verifies_though_todays_rules_refuse_its_request() -> None:
    records = as_version_4(play(("ann", FIRST_EDITION_DUEL)))
    report = verify_records(records, from_record)
    assert report.ok, report.first_failure
    request = next(r for r in records if r.event_type == "RollRequested")
    assert (request.schema_version, request.data["opponent"]["expression"]) == (4, "1d4+5")


def test_r6_the_same_request_held_to_the_second_edition_fails_at_the_rule_it_breaks() -> None:
    records = with_edition(play(("ann", FIRST_EDITION_DUEL)), 1, editions.SIDES_OWN)
    report = verify_records(records, from_record)
    assert report.first_failure is not None
    assert "name bob's MODs from their sheet" in report.first_failure.reason


def test_r6_a_session_never_goes_back_to_the_first_edition() -> None:
    # Roll 1 is today's; roll 2, relabelled as of the first edition to escape today's
    # rules, fails where it stands.
    today = cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(4,))
    first = cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(5,), rules_edition=editions.FIRST)
    with pytest.raises(RollError, match="a session's rules only go forward"):
        play(("ann", today), ("ann", first))
    records = with_edition(play(("ann", today), ("ann", replace(today, faces=(5,)))), 2, 1)
    report = verify_records(records, from_record)
    assert report.first_failure is not None
    assert "a session's rules only go forward" in report.first_failure.reason


def test_an_edition_no_release_wrote_is_refused() -> None:
    unknown = cmd.RequestRoll(RollKind.EFFECT, "1d6", rules_edition=editions.CURRENT + 1)
    with pytest.raises(RollError, match="no edition 3 of the request rules is known"):
        play(("ann", unknown))

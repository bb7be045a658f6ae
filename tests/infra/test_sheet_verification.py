"""verify re-checks every sheet reference against the sheet as replayed (R4, R6)."""

from __future__ import annotations

from dataclasses import replace

from diceledger.domain.dice.request import RollKind
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.codec.events import from_record
from tests.infra.forging import rechain
from tests.infra.support import memory_services


def played(strength: int) -> list[RecordedEvent]:
    """ann's Thalia, STR ``strength``, rolls 1d20+@STR on a typed-in 10."""
    services = memory_services()
    sessions = services.sessions
    sid = sessions.start("Sheet table", "gm").session_id
    sessions.execute(sid, "ann", cmd.JoinSession("ann"))
    sessions.execute(sid, "ann", cmd.CreateCharacter("Thalia", "ann"))
    sessions.execute(sid, "ann", cmd.SetAttribute("Thalia", "STR", strength))
    roll = cmd.RequestRoll(RollKind.EFFECT, "1d20+@STR", faces=(10,))
    sessions.execute(sid, "ann", roll)
    return list(services.store.read_stream(sid))


def test_r4_r6_an_honest_log_with_sheet_references_verifies() -> None:
    report = verify_records(played(3), from_record)
    assert report.ok, report.first_failure


def test_r4_r6_verify_refuses_a_forged_export_whose_recorded_mod_differs_from_the_sheet() -> None:
    honest, other = played(3), played(5)
    # The forger takes the request and total of a roll made with STR +5 (same typed-in
    # die), so the arithmetic holds; only the sheet as replayed says +3.
    index = next(i for i, r in enumerate(honest) if r.event_type == "RollRequested")
    forged = list(honest)
    for offset in (0, 1, 2):  # RollRequested, DiceRolled, RollResolved
        forged[index + offset] = replace(honest[index + offset], data=other[index + offset].data)
    assert forged[index].data["side"]["expression"] == "1d20+5[STR]"
    assert forged[index + 2].data["total"] == 15
    report = verify_records(rechain(forged, index), from_record)
    assert not report.ok
    failure = report.first_failure
    assert failure is not None and failure.stream_version == index + 1
    assert "the rules give '1d20+3[STR]'" in failure.reason

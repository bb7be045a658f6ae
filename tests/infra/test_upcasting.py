"""Logs written by an older release (SessionStarted, SessionEnded, RollDisputed and
DisputeResolved at version 1, RollRequested at version 3) still replay, verify and grow."""

from __future__ import annotations

from pathlib import Path

import pytest

from diceledger.domain.dice.request import RollKind
from diceledger.domain.errors import CorruptLogError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import (
    DisputeResolved,
    RollDisputed,
    RollRequested,
    SessionEnded,
    SessionStarted,
)
from diceledger.domain.session.modes import RollMode
from diceledger.infra.app.verification import verify_file
from diceledger.infra.codec.events import decode, from_record
from diceledger.infra.store.exporting import read_export
from tests.infra.support import memory_services

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "session_v1.jsonl"


def test_the_fixture_really_holds_a_version_1_session_started() -> None:
    first = next(read_export(FIXTURE))
    assert (first.event_type, first.schema_version) == ("SessionStarted", 1)
    assert "manual_dice_allowed" not in first.data


def test_version_1_session_started_is_upcast_to_allow_typed_in_dice() -> None:
    event = from_record(next(read_export(FIXTURE)))
    assert isinstance(event, SessionStarted)
    assert event.manual_dice_allowed is True and event.title == "Old Tomb"


def test_the_old_log_verifies_with_its_original_hashes() -> None:
    report = verify_file(FIXTURE)
    assert report.ok, report.first_failure
    assert report.rolls == 2 and report.dice_verified > 0


def test_an_imported_old_log_loads_and_refuses_rolls_after_its_end() -> None:
    services = memory_services()
    records = list(read_export(FIXTURE))
    assert services.store.import_recorded(records) == len(records)
    session_id = records[0].stream_id
    state = services.sessions.load(session_id)
    assert state.ended and state.manual_dice_allowed
    with pytest.raises(Exception, match="has ended"):
        services.sessions.execute(session_id, "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6"))


def test_an_event_newer_than_this_release_is_refused() -> None:
    with pytest.raises(CorruptLogError, match="newer than this release"):
        decode("SessionStarted", 3, {})


DISPUTES = Path(__file__).resolve().parents[1] / "fixtures" / "disputes_v1.jsonl"


def test_the_disputes_fixture_holds_version_1_disputes_rulings_and_end() -> None:
    old = [r for r in read_export(DISPUTES) if r.schema_version == 1]
    kinds = {r.event_type for r in old}
    assert {"RollDisputed", "DisputeResolved", "SessionEnded"} <= kinds
    assert all("at" not in r.data for r in old if r.event_type != "SessionEnded")
    assert [r.data for r in old if r.event_type == "SessionEnded"] == [{"by": "mira"}]


def test_version_1_disputes_and_end_upcast_to_no_time_and_no_window() -> None:
    events = [from_record(r) for r in read_export(DISPUTES)]
    disputes = [e for e in events if isinstance(e, RollDisputed | DisputeResolved)]
    assert len(disputes) == 4 and all(e.at is None for e in disputes)
    (ended,) = [e for e in events if isinstance(e, SessionEnded)]
    assert (ended.ended_at, ended.dispute_window) == (None, 0)


def test_the_old_disputes_log_verifies_and_takes_no_dispute_after_its_end() -> None:
    report = verify_file(DISPUTES)
    assert report.ok, report.first_failure
    services = memory_services()
    records = list(read_export(DISPUTES))
    services.store.import_recorded(records)
    session_id = records[0].stream_id
    assert services.sessions.load(session_id).disputes_until is None
    with pytest.raises(Exception, match="took no disputes after its end"):
        services.sessions.execute(session_id, "ann", cmd.OpenDispute(2, "late"))


V3 = Path(__file__).resolve().parents[1] / "fixtures" / "session_v3_blind.jsonl"


def test_version_3_requests_read_blind_as_mode_blind_and_the_rest_as_public() -> None:
    requests = [r for r in read_export(V3) if r.event_type == "RollRequested"]
    assert {r.schema_version for r in requests} == {3}
    modes = {}
    for record in requests:
        event = from_record(record)
        assert isinstance(event, RollRequested) and "blind" in record.data
        modes[event.roll_id] = event.mode
    assert modes[6] == RollMode.BLIND.value  # mira's blind roll for the orc
    assert {mode for roll_id, mode in modes.items() if roll_id != 6} == {RollMode.PUBLIC.value}


def test_the_version_3_log_verifies_with_its_original_hashes() -> None:
    report = verify_file(V3)
    assert report.ok, report.first_failure

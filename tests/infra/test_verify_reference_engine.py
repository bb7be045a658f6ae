"""verify resolves every roll with its own reference engine, not the one that rolled it."""

from __future__ import annotations

import pytest

from diceledger.domain.dice.rollstate import RollState
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.codec.events import from_record
from tests.infra.session_factory import honest_session, records_of


def test_a_fault_in_the_engine_that_rolled_cannot_hide_from_verify(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An engine that adds one to every total, both when it rolls and when verify decides
    # the commands again: the log agrees with it, so only a second engine can tell.
    honest_total = RollState.total
    assert isinstance(honest_total, property) and honest_total.fget is not None
    fget = honest_total.fget
    monkeypatch.setattr(RollState, "total", property(lambda state: fget(state) + 1))
    services, sid = honest_session(rounds=1)
    report = verify_records(records_of(services, sid), from_record)
    assert not report.ok
    assert report.first_failure is not None
    assert "the dice give" in report.first_failure.reason


def test_the_same_session_verifies_when_the_engine_is_sound() -> None:
    services, sid = honest_session(rounds=1)
    report = verify_records(records_of(services, sid), from_record)
    assert report.ok, report.first_failure

"""Times in human output are the reader's own: local zone, named, to the minute.

JSON keeps RFC 3339 in UTC. TZ is set (and applied with tzset) so the zone is known.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tests.cli.conftest import Ledger

ZONE = "America/New_York"


@pytest.fixture(autouse=True)
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", ZONE)
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def read_there(utc: str) -> str:
    """Return an RFC 3339 UTC time as a reader in ZONE reads it."""
    moment = datetime.fromisoformat(utc).astimezone(ZoneInfo(ZONE))
    return moment.strftime("%Y-%m-%d %H:%M ") + str(moment.tzname())


def test_the_end_of_the_dispute_window_is_shown_in_local_time(ledger: Ledger, table: str) -> None:
    printed = ledger.ok("gm", "session", "end", table, "--dispute-days", "3").splitlines()
    until = ledger.data("gm", "session", "show", table)["disputes_until"]
    assert until.endswith("Z")
    assert f"disputes open until {read_there(until)}" in printed


def test_replay_lines_show_local_times(ledger: Ledger, table: str) -> None:
    lines = [line for line in ledger.ok("ann", "replay", table).splitlines() if line[:1] == "2"]
    first = json.loads(ledger.ok("ann", "replay", table, "--json").splitlines()[0])
    assert first["recorded_at"].endswith("Z")
    assert lines[0].startswith(read_there(first["recorded_at"]) + "  gm ")


def test_no_human_line_of_a_replay_holds_a_utc_timestamp(ledger: Ledger, table: str) -> None:
    ledger.ok("gm", "session", "end", table, "--dispute-days", "3")
    printed = ledger.ok("ann", "replay", table)
    assert "session ended by gm; disputes taken for 3 days" in printed
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", printed), printed

"""The session directory fold: sessions, distinct members, rolls and endings."""

from __future__ import annotations

from datetime import UTC, datetime

from diceledger.domain.projections.directory import DirectoryChanges, Started, directory_changes
from diceledger.domain.projections.logged import Logged
from diceledger.domain.session import events as ev

WHEN = datetime(2026, 11, 29, tzinfo=UTC)


def at(position: int, stream: str, event: ev.Event) -> Logged:
    return Logged(position, stream, position, WHEN, "gm", event)


def test_a_batch_records_starts_distinct_members_rolls_and_endings() -> None:
    started = ev.SessionStarted("s1", "Tomb", "gm", True)
    gm = ev.PlayerJoined("gm", "gm", "", "gm")
    ann = ev.PlayerJoined("ann", "player", "", "ann")
    ann_promoted = ev.PlayerJoined("ann", "gm", "", "gm")
    changes = directory_changes(
        [
            at(1, "s1", started),
            at(2, "s1", gm),
            at(3, "s1", ann),
            at(4, "s1", ann_promoted),
            at(5, "s1", ev.SessionEnded("gm")),
        ]
    )
    assert changes.started == {"s1": Started("Tomb", "gm", 1)}
    assert changes.joined == {("s1", "gm"), ("s1", "ann")}
    assert changes.ended == {"s1"} and not changes.rolls


def test_a_batch_of_other_events_changes_nothing() -> None:
    assert directory_changes([at(9, "s1", ev.RollAccepted(1, "ann", 0))]) == DirectoryChanges()

"""verify: an honest session passes; every kind of tampering is caught and named."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from diceledger.domain.records import RecordedEvent
from diceledger.domain.verification.report import Report
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.app.verification import verify_file, verify_log
from diceledger.infra.codec.events import from_record
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.exporting import write_export
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events as events_table
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.forging import rechain
from tests.infra.session_factory import honest_session, records_of

Tamper = Callable[[list[RecordedEvent]], list[RecordedEvent]]


@pytest.fixture(scope="module")
def honest() -> list[RecordedEvent]:
    services, sid = honest_session(rounds=38)
    return records_of(services, sid)


def verify(records: list[RecordedEvent]) -> Report:
    return verify_records(records, from_record)


def test_an_honest_session_of_three_hundred_rolls_verifies_clean(
    honest: list[RecordedEvent],
) -> None:
    report = verify(honest)
    assert report.ok, report.first_failure
    assert report.rolls == 38 * 8 + 4  # and the four rolls from the sheets
    assert report.manual_dice == 38 * 4
    assert report.dice_verified > 600 and report.unverifiable_dice == 0
    kinds = {r.event_type for r in honest}
    assert {"DieExploded", "DieRerolled", "OpposedCheckTied", "RollRevealed"} <= kinds


def test_dice_of_an_unrevealed_epoch_are_not_yet_verifiable_not_passing() -> None:
    services, sid = honest_session(rounds=3, end=False)
    report = verify(records_of(services, sid))
    assert report.ok and report.unrevealed_epochs == [2]
    assert report.unverifiable_dice > 0


def index_of(records: list[RecordedEvent], event_type: str, nth: int = 0) -> int:
    return [i for i, r in enumerate(records) if r.event_type == event_type][nth]


def with_data(record: RecordedEvent, **changes: object) -> RecordedEvent:
    return replace(record, data={**record.data, **changes})


def change_face(records: list[RecordedEvent]) -> list[RecordedEvent]:
    i = index_of(records, "DiceRolled", 3)
    dice = [dict(d) for d in records[i].data["dice"]]
    dice[0]["face"] = dice[0]["face"] % 4 + 1
    return records[:i] + [with_data(records[i], dice=dice)] + records[i + 1 :]


def change_total(records: list[RecordedEvent]) -> list[RecordedEvent]:
    i = index_of(records, "CheckResolved", 2)
    total = records[i].data["total"] + 1
    return records[:i] + [with_data(records[i], total=total)] + records[i + 1 :]


def change_timestamp(records: list[RecordedEvent]) -> list[RecordedEvent]:
    i = 40
    moved = replace(records[i], recorded_at=records[i].recorded_at - timedelta(hours=1))
    return records[:i] + [moved] + records[i + 1 :]


def change_actor(records: list[RecordedEvent]) -> list[RecordedEvent]:
    i = index_of(records, "RollRequested", 5)
    changed = replace(records[i], meta={**records[i].meta, "actor": "mallory"})
    return records[:i] + [changed] + records[i + 1 :]


def delete_event(records: list[RecordedEvent]) -> list[RecordedEvent]:
    i = index_of(records, "DieRerolled", 1)
    return records[:i] + records[i + 1 :]


def swap_events(records: list[RecordedEvent]) -> list[RecordedEvent]:
    # Contents trade places; each keeps the version number of its new place.
    i = index_of(records, "RollRequested", 7)
    a, b = records[i], records[i + 1]
    first = replace(b, position=a.position, stream_version=a.stream_version)
    second = replace(a, position=b.position, stream_version=b.stream_version)
    return records[:i] + [first, second] + records[i + 2 :]


def insert_forged_rehashed(records: list[RecordedEvent]) -> list[RecordedEvent]:
    # An extra explosion die slipped into a resolved roll, the chain rebuilt around it.
    i = index_of(records, "DiceRolled", 4)
    die = dict(records[i].data["dice"][0], index=99, reason="explosion", step=1, parent=0)
    forged = replace(
        records[i],
        event_type="DieExploded",
        event_id="0f0f0f0f-0000-4000-8000-00000000f0f0",
        data={"roll_id": records[i].data["roll_id"], "die": die, "side": 0, "round": 1},
    )
    return rechain(records[: i + 1] + [forged] + records[i + 1 :], i + 1)


def change_face_rehashed(records: list[RecordedEvent]) -> list[RecordedEvent]:
    return rechain(change_face(records), index_of(records, "DiceRolled", 3))


def change_total_rehashed(records: list[RecordedEvent]) -> list[RecordedEvent]:
    return rechain(change_total(records), index_of(records, "CheckResolved", 2))


def reveal_wrong_seed(records: list[RecordedEvent]) -> list[RecordedEvent]:
    i = index_of(records, "SeedRevealed")
    wrong = with_data(records[i], seed="ab" * 32)
    return rechain(records[:i] + [wrong] + records[i + 1 :], i)


def dc_target_rehashed(records: list[RecordedEvent]) -> list[RecordedEvent]:
    # R4: a DC's target is 10 + its modifier; a forger who raises it must be caught.
    i = next(
        n
        for n, r in enumerate(records)
        if r.event_type == "RollRequested" and r.data["dc_modifier"] is not None
    )
    return rechain(records[:i] + [with_data(records[i], target=99)] + records[i + 1 :], i)


TAMPERING: dict[str, tuple[Tamper, str]] = {
    "a DC target that is not 10 + its modifier": (
        dc_target_rehashed,
        "a DC of 3 is a target of 13, not 99",
    ),
    "one face": (change_face, "hash does not match"),
    "one total": (change_total, "hash does not match"),
    "one timestamp": (change_timestamp, "hash does not match"),
    "one actor": (change_actor, "hash does not match"),
    "a deleted event": (delete_event, "follows version"),
    "two swapped events": (swap_events, "does not match"),
    "a forged event with recomputed hashes": (insert_forged_rehashed, "die 99"),
    "a face with recomputed hashes": (change_face_rehashed, "seed gives"),
    "a total with recomputed hashes": (change_total_rehashed, "the dice give"),
    "a wrong revealed seed": (reveal_wrong_seed, "does not match its commitment"),
}


def first_bad_position(honest: list[RecordedEvent], tampered: list[RecordedEvent]) -> int:
    for good, bad in zip(honest, tampered, strict=False):
        if good != bad:
            return bad.position
    return tampered[-1].position


@pytest.mark.parametrize("name", TAMPERING)
def test_tampering_with_an_export_is_detected_and_named(
    name: str, honest: list[RecordedEvent], tmp_path: Path
) -> None:
    tamper, reason = TAMPERING[name]
    tampered = tamper(list(honest))
    path = tmp_path / "session.jsonl"
    write_export(tampered, path)
    report = verify_file(path)
    assert not report.ok
    first = report.first_failure
    assert first is not None and reason in first.reason
    assert first.position >= first_bad_position(honest, tampered)


@pytest.mark.parametrize("name", TAMPERING)
def test_tampering_inside_sqlite_with_triggers_dropped_is_detected(
    name: str, honest: list[RecordedEvent], sqlite_url: str
) -> None:
    tamper, reason = TAMPERING[name]
    engine = make_engine(sqlite_url)
    store = SqlEventStore(engine)
    assert store.import_recorded(honest) == len(honest)
    sid = honest[0].stream_id
    assert verify_log(store, sid).ok
    tampered = tamper(list(honest))
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP TRIGGER events_reject_update")
        connection.exec_driver_sql("DROP TRIGGER events_reject_delete")
        connection.execute(sa.delete(events_table).where(events_table.c.stream_id == sid))
        rows = [to_row(replace(r, position=p)) for p, r in enumerate(tampered, start=1)]
        connection.execute(sa.insert(events_table), rows)
    report = verify_log(store, sid)
    assert not report.ok
    first = report.first_failure
    assert first is not None and reason in first.reason


def test_a_broken_export_line_is_named(honest: list[RecordedEvent], tmp_path: Path) -> None:
    path = tmp_path / "partial.jsonl"
    write_export(honest[:10], path)
    with path.open("a") as handle:
        handle.write(json.dumps({"event_id": "x"})[:-3])
    with pytest.raises(Exception, match="line 11"):
        verify_file(path)

"""The published schema: committed as generated, fits every event we write, pins versions."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from diceledger.domain.records import RecordedEvent
from diceledger.domain.session.events import EVENT_TYPES
from diceledger.infra.app.event_schema import events_schema, events_schema_text, schema_fingerprints
from diceledger.infra.codec.events import decode
from diceledger.infra.codec.old_versions import OLDER_SHAPES, UPCASTERS
from diceledger.infra.store.exporting import export_line, read_export
from diceledger.infra.store.memory import InMemoryEventStore
from tests.documents import object_at
from tests.infra.played_tables import play
from tests.infra.schema_files import (
    SCHEMA_FILE,
    VERSIONS_FILE,
    changed_versions,
    recorded_fingerprints,
)
from tests.infra.session_factory import honest_session, records_of

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "session_v1.jsonl"
REGENERATE = "python -m tests.infra.schema_files"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = events_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def problems(validator: Draft202012Validator, records: Iterable[RecordedEvent]) -> list[str]:
    found = []
    for record in records:
        for error in validator.iter_errors(json.loads(export_line(record))):
            where = "/".join(str(part) for part in error.absolute_path)
            found.append(f"{record.event_type} v{record.stream_version} {where}: {error.message}")
    return found


def test_the_committed_schema_file_is_the_generated_one() -> None:
    assert SCHEMA_FILE.read_text() == events_schema_text(), f"run `{REGENERATE}`"


def test_the_schema_names_every_event_type_at_every_version_still_read() -> None:
    defs = object_at(events_schema(), "$defs")
    expected = {f"{name}.v{cls.schema_version}" for name, cls in EVENT_TYPES.items()}
    expected |= {f"{name}.v{version}" for name, version in UPCASTERS}
    assert expected <= set(defs)
    assert {"Amount", "CheckSide", "DieRecord", "SheetValue"} | expected == set(defs)


def test_every_event_of_an_honest_session_fits_the_schema(
    validator: Draft202012Validator,
) -> None:
    services, sid = honest_session(rounds=4)
    records = records_of(services, sid)
    random_ones = {"RollDisputed", "DisputeResolved", "OpposedCheckTied", "DieExploded"}
    assert set(EVENT_TYPES) - random_ones <= {r.event_type for r in records}
    assert problems(validator, records) == []


def test_every_event_of_randomly_played_tables_fits_the_schema(
    validator: Draft202012Validator,
) -> None:
    store = InMemoryEventStore()
    for _ in play(store, 600):
        pass
    records = list(store.read_all(0))
    assert {"RollDisputed", "DisputeResolved", "OpposedCheckTied"} <= {
        r.event_type for r in records
    }
    assert problems(validator, records) == []


def test_a_log_of_an_older_release_fits_the_schema_of_its_versions(
    validator: Draft202012Validator,
) -> None:
    records = list(read_export(FIXTURE))
    assert records[0].schema_version == 1
    assert problems(validator, records) == []


def line_of(records: list[RecordedEvent], event_type: str) -> dict[str, Any]:
    line: dict[str, Any] = json.loads(
        export_line(next(r for r in records if r.event_type == event_type))
    )
    return line


@pytest.mark.parametrize(
    ("event_type", "change", "message"),
    [
        ("DiceRolled", lambda d: d["data"]["dice"][0].update(face=0), "less than the minimum"),
        ("DiceRolled", lambda d: d["data"]["dice"][0].update(sides=7), "is not one of"),
        ("RollRequested", lambda d: d["data"].pop("salt"), "'salt' is a required property"),
        ("RollResolved", lambda d: d["data"].update(bonus=1), "Additional properties"),
        ("SessionStarted", lambda d: d.update(schema_version=3), "is not one of [1, 2]"),
        ("SessionStarted", lambda d: d["data"].pop("manual_dice_allowed"), "required"),
        ("SeedRevealed", lambda d: d["data"].update(seed="ABC"), "does not match"),
        ("SessionEnded", lambda d: d.update(event_type="SessionClosed"), "is not one of"),
        ("SessionEnded", lambda d: d.update(recorded_at="2026-01-01T00:00:00Z"), "match"),
    ],
)
def test_the_schema_refuses_what_no_release_writes(
    validator: Draft202012Validator, event_type: str, change: Any, message: str
) -> None:
    services, sid = honest_session(rounds=1)
    line = line_of(records_of(services, sid), event_type)
    assert list(validator.iter_errors(line)) == []
    change(line)
    messages = [error.message for error in validator.iter_errors(line)]
    assert any(message in m for m in messages), messages


def test_a_version_1_session_started_fits_only_the_version_1_shape(
    validator: Draft202012Validator,
) -> None:
    line: dict[str, Any] = json.loads(export_line(next(read_export(FIXTURE))))
    line["schema_version"] = 2
    assert any("required" in e.message for e in validator.iter_errors(line))


def test_every_upcaster_has_its_input_shape_described_beside_it() -> None:
    assert set(OLDER_SHAPES) == set(UPCASTERS)


def test_an_old_shape_upcasts_to_an_event_that_fits_the_current_schema(
    validator: Draft202012Validator,
) -> None:
    line = json.loads(export_line(next(read_export(FIXTURE))))
    event = decode(line["event_type"], line["schema_version"], line["data"])
    services, sid = honest_session(rounds=1)
    current = line_of(records_of(services, sid), "SessionStarted")
    current["data"] = {**current["data"], **{k: getattr(event, k) for k in current["data"]}}
    assert list(validator.iter_errors(current)) == []


def test_no_event_class_changed_without_a_new_schema_version() -> None:
    recorded, current = recorded_fingerprints(), schema_fingerprints()
    changed = changed_versions(recorded, current)
    assert changed == [], (
        f"the data shape of {', '.join(changed)} changed but its schema_version did not: "
        "bump the class's schema_version, add an upcaster from the old version in "
        "infra/codec/old_versions.py with a dataclass of the old shape in OLDER_SHAPES, then run "
        f"`{REGENERATE}`"
    )
    unrecorded = sorted(set(current) - set(recorded))
    assert unrecorded == [], f"new schema versions {unrecorded}: run `{REGENERATE}`"
    assert VERSIONS_FILE.read_text() == json.dumps(recorded, indent=2) + "\n"


def test_a_changed_shape_is_reported_by_name() -> None:
    recorded = {"DiceRolled@1": "a" * 64, "SessionStarted@2": "b" * 64}
    current = {"DiceRolled@1": "c" * 64, "SessionStarted@2": "b" * 64, "X@1": "d" * 64}
    assert changed_versions(recorded, current) == ["DiceRolled@1"]

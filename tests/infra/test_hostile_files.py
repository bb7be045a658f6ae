"""Export files from anyone: every bad one is refused in one line, huge ones without holding them.

A file given to `verify --file` or `import` may be truncated, not UTF-8, nested a
hundred thousand levels deep, one 100 MB line, or repeat event ids. Each is an
CorruptLogError naming its line, read in bounded memory, and nothing is imported.
"""

from __future__ import annotations

import json
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest

from diceledger.domain.dice.request import RollKind
from diceledger.domain.errors import CorruptLogError
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.infra.app.verification import verify_file
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.exporting import (
    MAX_LINE_BYTES,
    import_export,
    read_export,
    write_export,
)
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.forging import rechain
from tests.infra.support import memory_services


@pytest.fixture(scope="module")
def records() -> list[RecordedEvent]:
    services = memory_services()
    sid = services.sessions.start("Files", "gm").session_id
    services.sessions.execute(sid, "ann", cmd.JoinSession("ann"))
    services.sessions.execute(sid, "ann", cmd.RequestRoll(RollKind.EFFECT, "2d6"))
    services.sessions.end(sid, "gm")
    return list(services.store.read_stream(sid))


def good_lines(records: list[RecordedEvent], tmp_path: Path) -> list[bytes]:
    path = tmp_path / "good.jsonl"
    write_export(records, path)
    return path.read_bytes().splitlines(keepends=True)


def refused(path: Path, fragment: str) -> None:
    """Both readers refuse the file in one line naming ``fragment``; nothing is imported."""
    with pytest.raises(CorruptLogError, match=fragment) as raised:
        verify_file(path)
    assert "\n" not in str(raised.value)
    store = InMemoryEventStore()
    with pytest.raises(CorruptLogError, match=fragment):
        import_export(store, path)
    assert store.head_position() == 0


def test_a_line_that_is_not_utf8_is_named(records: list[RecordedEvent], tmp_path: Path) -> None:
    lines = good_lines(records, tmp_path)
    lines[2] = lines[2].replace(b'"gm"', b'"g\xff\xfem"', 1)
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b"".join(lines))
    refused(path, r"line 3: not UTF-8 text \(byte 0xff")


@pytest.mark.parametrize("depth", [100_000, 40])
def test_deeply_nested_json_is_refused_not_a_recursion_error(
    records: list[RecordedEvent], tmp_path: Path, depth: int
) -> None:
    lines = good_lines(records, tmp_path)
    document = json.loads(lines[1])
    deep = "[" * depth + "]" * depth
    text = json.dumps(document).replace('"added_by": "gm"', f'"added_by": {deep}', 1)
    lines[1] = text.encode() + b"\n"
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"".join(lines))
    refused(path, "line 2: JSON nested")


def test_an_integer_of_thousands_of_digits_is_not_json_here(tmp_path: Path) -> None:
    path = tmp_path / "digits.jsonl"
    path.write_text('{"position": ' + "9" * 5000 + "}\n")
    refused(path, "line 1: not JSON")


def test_a_huge_line_is_refused_without_holding_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    filler = b"x" * (1 << 20)
    with path.open("wb") as file:
        file.write(b'{"data": "')
        for _ in range(100):  # a 100 MB line
            file.write(filler)
        file.write(b'"}\n')
    tracemalloc.start()
    try:
        with pytest.raises(CorruptLogError, match=f"line 1: longer than {MAX_LINE_BYTES:,} bytes"):
            list(read_export(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MAX_LINE_BYTES


def test_duplicate_event_ids_in_an_import_file_are_named_not_a_writer_race(
    records: list[RecordedEvent], tmp_path: Path, sqlite_url: str
) -> None:
    # A second session, each of whose chains is intact, reuses an event id of the first.
    services = memory_services()
    sid = services.sessions.start("Other", "gm").session_id
    other = list(services.store.read_stream(sid))
    other[1] = replace(other[1], event_id=records[0].event_id)
    path = tmp_path / "twice.jsonl"
    write_export([*records, *rechain(other)], path)
    engine = make_engine(sqlite_url)
    try:
        store = SqlEventStore(engine)
        with pytest.raises(CorruptLogError) as raised:
            import_export(store, path)
        assert f"event id {records[0].event_id} appears twice" in str(raised.value)
        assert store.head_position() == 0
    finally:
        engine.dispose()


def test_a_file_of_two_sessions_does_not_verify_as_one(
    records: list[RecordedEvent], tmp_path: Path
) -> None:
    services = memory_services()
    sid = services.sessions.start("Other", "gm").session_id
    path = tmp_path / "two.jsonl"
    write_export([*records, *services.store.read_stream(sid)], path)
    report = verify_file(path)
    assert not report.ok
    assert report.first_failure is not None
    assert "another session" in report.first_failure.reason

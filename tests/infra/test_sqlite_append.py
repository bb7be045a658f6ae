"""SQLite's driver-level append answers exactly as the Core path does, and reads old rows."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceledger.domain.errors import DiceledgerError, InvalidInputError, StoreUnavailableError
from diceledger.domain.hashchain import (
    ChainHead,
    event_hash,
    record_hash,
    verify_chain,
)
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.sealing import seal
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.support import new_event

MOMENT = datetime(2026, 11, 29, 19, 40, 33, 123456, UTC)

# JSON values an event may hold, with text outside ASCII and keys in any order.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.text(st.characters(blacklist_categories=["Cs"])),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(st.characters(max_codepoint=0xFFFF, blacklist_categories=["Cs"])),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)
keys = st.text(st.characters(max_codepoint=0xFFFF, blacklist_categories=["Cs"]), max_size=8)
json_objects = st.dictionaries(keys, json_values, max_size=5)


@settings(max_examples=200, deadline=None)
@given(data=json_objects, meta=json_objects, stream_id=st.text(min_size=1, max_size=10))
def test_sealing_hashes_the_rfc8785_bytes_of_the_record(
    data: dict[str, Any], meta: dict[str, Any], stream_id: str
) -> None:
    if not stream_id.isprintable():
        stream_id = "s"
    event = NewEvent(str(uuid.uuid4()), "DiceRolled", data, 3, meta)
    head = ChainHead(7, "ab" * 32)
    (sealed,) = seal(stream_id, [event], head, datetime(2026, 1, 2, 3, 4, 5, 6, UTC))
    document: dict[str, Any] = {
        "event_id": event.event_id,
        "stream_id": stream_id,
        "stream_version": 8,
        "event_type": "DiceRolled",
        "schema_version": 3,
        "data": data,
        "meta": meta,
        "recorded_at": "2026-01-02T03:04:05.000006Z",
        "prev_hash": "ab" * 32,
    }
    assert sealed.hash == hashlib.sha256(b"\x00" + rfc8785.dumps(document)).hexdigest()
    assert sealed.hash == record_hash(sealed)  # the verifier's own serialisation
    assert (sealed.data, sealed.meta) == (data, meta)


@pytest.mark.parametrize(
    "data",
    [
        {"face": 1.5},
        {"face": 2**53},
        {"faces": [1, {"x": -(2**60)}]},
        {1: "a"},
        {"a": {"\U0001f3b2": 1}},
        {"a": "\ud800"},
        {"a": {1, 2}},
    ],
)
def test_sealing_refuses_as_the_reference_does(data: dict[Any, Any]) -> None:
    moment = datetime.now(UTC)
    event = NewEvent(str(uuid.uuid4()), "DiceRolled", data)
    with pytest.raises(InvalidInputError) as reference:
        event_hash(
            event_id=event.event_id,
            stream_id="s",
            stream_version=1,
            event_type="DiceRolled",
            schema_version=1,
            data=data,
            meta={},
            recorded_at=moment,
            prev_hash=ChainHead().hash,
        )
    with pytest.raises(InvalidInputError) as sealing:
        seal("s", [event], ChainHead(), moment)
    assert str(sealing.value) == str(reference.value)


def test_sealing_odd_but_accepted_types_goes_the_reference_way() -> None:
    class Name(str):
        pass

    for event in (
        NewEvent(str(uuid.uuid4()), Name("DiceRolled"), {"face": 4}),
        NewEvent(str(uuid.uuid4()), "DiceRolled", {"face": (1, 2)}, True),
    ):
        (record,) = seal("s", [event], ChainHead(), datetime.now(UTC))
        assert record.hash == record_hash(record)


Operation = tuple[int, int, int, str]
STREAMS = ["s0", "s1"]
# (stream index, batch size, offset added to the right expected version, what to send)
operations = st.lists(
    st.tuples(
        st.integers(0, len(STREAMS) - 1),
        st.integers(1, 3),
        st.sampled_from([0, 0, 0, -1, 1]),
        st.sampled_from(["new", "new", "retry", "mixed", "elsewhere"]),
    ),
    max_size=20,
)


@contextmanager
def twin_stores(template: Path) -> Iterator[tuple[SqlEventStore, SqlEventStore, list[Path]]]:
    """Two fresh SQLite stores, the fast path and the Core path, on a clock that stands still.

    (The fast path reads the clock before it learns that a batch is a retry.)
    """
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / "fast.sqlite", Path(folder) / "core.sqlite"]
        engines = []
        for path in paths:
            shutil.copyfile(template, path)
            engines.append(make_engine(f"sqlite:///{path}"))
        try:
            yield (
                SqlEventStore(engines[0], clock=lambda: MOMENT, batch_size=4),
                SqlEventStore(engines[1], clock=lambda: MOMENT, batch_size=4, fast=False),
                paths,
            )
        finally:
            for engine in engines:
                engine.dispose()


def outcome(append: Callable[[], list[RecordedEvent]]) -> object:
    try:
        return append()
    except DiceledgerError as error:
        return (type(error).__name__, str(error))


def stored_rows(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT * FROM events ORDER BY position").fetchall()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plan=operations)
def test_fast_path_answers_every_append_as_the_core_path(
    _upgraded_sqlite_template: Path, plan: list[Operation]
) -> None:
    batches: list[tuple[str, list[NewEvent]]] = []
    versions = dict.fromkeys(STREAMS, 0)
    with twin_stores(_upgraded_sqlite_template) as (fast, core, paths):
        for stream_index, size, offset, kind in plan:
            stream = STREAMS[stream_index]
            batch = [new_event(n=i) for i in range(size)]
            if kind == "retry" and batches:
                stream, batch = batches[-1]
            elif kind == "mixed" and batches:
                batch = [batches[-1][1][0], *batch]
            elif kind == "elsewhere" and batches:
                other = STREAMS[1 - STREAMS.index(batches[-1][0])]
                stream, batch = other, [*batch, batches[-1][1][-1]]
            expected = versions[stream] + offset
            answers = [
                outcome(partial(store.append, stream, batch, expected)) for store in (fast, core)
            ]
            assert answers[0] == answers[1]
            if isinstance(answers[0], list) and kind != "retry":
                batches.append((stream, batch))
                versions[stream] += len(batch)
        assert list(fast.read_all()) == list(core.read_all())
        assert verify_chain(fast.read_all()) is None
        fast_rows, core_rows = stored_rows(paths[0]), stored_rows(paths[1])
    assert fast_rows == core_rows  # stored bytes unchanged, column by column
    for fast_row, core_row in zip(fast_rows, core_rows, strict=True):
        assert [type(value) for value in fast_row] == [type(value) for value in core_row]


def test_rows_written_the_core_way_and_the_fast_way_read_alike(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    try:
        older = SqlEventStore(engine, fast=False).append(
            "s", [new_event(name="Zoë", faces=[1, 2]), new_event()], 0
        )
        newer = SqlEventStore(engine).append("s", [new_event(name="Zoë", faces=[1, 2])], 2)
        store = SqlEventStore(engine)
        assert list(store.read_stream("s")) == older + newer
        assert verify_chain(store.read_all()) is None
        assert newer[0].prev_hash == older[-1].hash
        with engine.connect() as connection:
            texts = connection.exec_driver_sql("SELECT data FROM events ORDER BY position")
            first, _, third = texts.scalars().all()
    finally:
        engine.dispose()
    # Both as SQLAlchemy's JSON type writes them: json.dumps with its defaults.
    assert first == third == json.dumps({"name": "Zoë", "faces": [1, 2]})


def test_a_refused_batch_leaves_nothing_behind_and_the_store_usable(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    try:
        store = SqlEventStore(engine)
        (elsewhere,) = store.append("other", [new_event()], 0)
        recorded = NewEvent(elsewhere.event_id, "DiceRolled", {"face": 1})
        # The first two rows are inserted before the third collides: all are rolled back.
        with pytest.raises(DiceledgerError, match="already recorded in another stream"):
            store.append("s", [new_event(), new_event(), recorded], 0)
        assert store.current_version("s") == 0
        assert [r.stream_version for r in store.append("s", [new_event()], 0)] == [1]
    finally:
        engine.dispose()


def test_a_locked_database_is_reported_as_before(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url, busy_timeout_ms=50)
    path = sqlite_url.removeprefix("sqlite:///")
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreUnavailableError, match="locked by another writer"):
            SqlEventStore(engine).append("s", [new_event()], 0)
        holder.execute("ROLLBACK")
        assert len(SqlEventStore(engine).append("s", [new_event()], 0)) == 1
    finally:
        holder.close()
        engine.dispose()

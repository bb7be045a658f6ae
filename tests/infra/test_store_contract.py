"""The event store contract, written once and run on every backend (memory, SQLite, PG)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from diceledger.domain.errors import ConcurrencyError, CorruptLogError, InvalidInputError
from diceledger.domain.hashchain import GENESIS_HASH, record_hash, verify_chain
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.infra.store.port import EventStore
from tests.infra.support import BACKENDS, StoreFactory, new_event, store_factory, ticking_clock


@pytest.fixture(params=BACKENDS)
def make_store(request: pytest.FixtureRequest) -> StoreFactory:
    return store_factory(request.param, request)


@pytest.fixture
def store(make_store: StoreFactory) -> EventStore:
    # A tiny batch size makes every read cross several batch boundaries.
    return make_store(clock=ticking_clock(), batch_size=3)


def test_an_empty_store_has_no_events_streams_or_head(store: EventStore) -> None:
    assert store.head_position() == 0
    assert store.current_version("nobody") == 0
    assert list(store.read_all()) == []
    assert list(store.read_stream("nobody")) == []
    assert store.stream_ids() == []


def test_appends_get_gapless_versions_and_increasing_positions(store: EventStore) -> None:
    first = store.append("s1", [new_event(), new_event()], expected_version=0)
    second = store.append("s1", [new_event()], expected_version=2)
    positions = [r.position for r in first + second]
    assert positions == sorted(positions) and len(set(positions)) == 3
    recorded = list(store.read_stream("s1"))
    assert [r.stream_version for r in recorded] == [1, 2, 3]
    assert [r.position for r in recorded] == positions
    # append answers with the records exactly as a later read finds them.
    assert first + second == recorded
    assert store.current_version("s1") == 3
    assert store.head_position() == positions[-1]


def test_event_contents_round_trip_exactly(store: EventStore) -> None:
    data = {
        "who": "Zoë 🎲",
        "faces": [1, 20, -3],
        "nested": {"ok": True, "none": None, "big": 2**53 - 1, "empty": {}},
        "control": "tab\tnul\u0000",
    }
    event = NewEvent(
        event_id="5b0c3f4e-8d2a-4c1e-9f6b-2a7d1e3c4b5a",
        event_type="DiceRolled",
        data=data,
        schema_version=3,
        meta={"actor": "gm", "client_version": "0.1.0"},
    )
    store.append("s1", [event], expected_version=0)
    (recorded,) = list(store.read_stream("s1"))
    assert (recorded.event_id, recorded.event_type) == (event.event_id, "DiceRolled")
    assert recorded.data == data
    assert recorded.meta == {"actor": "gm", "client_version": "0.1.0"}
    assert recorded.schema_version == 3


def test_recorded_at_comes_from_the_clock_in_utc_to_the_microsecond(
    make_store: StoreFactory,
) -> None:
    plus_two = timezone(timedelta(hours=2))
    store = make_store(clock=lambda: datetime(2026, 11, 29, 21, 40, 33, 654321, tzinfo=plus_two))
    store.append("s1", [new_event()], expected_version=0)
    (recorded,) = list(store.read_stream("s1"))
    assert recorded.recorded_at == datetime(2026, 11, 29, 19, 40, 33, 654321, tzinfo=UTC)
    assert recorded.recorded_at.utcoffset() == timedelta(0)
    assert recorded.hash == record_hash(recorded)


def test_each_stream_is_hash_chained_from_genesis(store: EventStore) -> None:
    store.append("a", [new_event(), new_event()], expected_version=0)
    store.append("b", [new_event()], expected_version=0)
    store.append("a", [new_event()], expected_version=2)
    a = list(store.read_stream("a"))
    assert a[0].prev_hash == GENESIS_HASH
    assert [r.prev_hash for r in a[1:]] == [r.hash for r in a[:-1]]
    assert next(store.read_stream("b")).prev_hash == GENESIS_HASH
    assert verify_chain(store.read_all()) is None


@pytest.mark.parametrize("wrong", [0, 1, 3])
def test_a_wrong_expected_version_conflicts_and_appends_nothing(
    store: EventStore, wrong: int
) -> None:
    store.append("s1", [new_event(), new_event()], expected_version=0)
    with pytest.raises(ConcurrencyError, match="version 2"):
        store.append("s1", [new_event()], expected_version=wrong)
    assert store.current_version("s1") == 2
    assert len(list(store.read_all())) == 2


def test_a_new_stream_must_be_expected_at_version_zero(store: EventStore) -> None:
    with pytest.raises(ConcurrencyError):
        store.append("fresh", [new_event()], expected_version=1)
    assert list(store.read_all()) == []


def test_re_appending_the_same_event_ids_returns_the_original_records(
    store: EventStore,
) -> None:
    batch = [new_event(), new_event()]
    store.append("other", [new_event()], expected_version=0)
    original = store.append("s1", batch, expected_version=0)
    store.append("s1", [new_event()], expected_version=2)
    # The retry carries the stale expected version of the first attempt.
    assert store.append("s1", batch, expected_version=0) == original
    assert store.current_version("s1") == 3
    assert len(list(store.read_all())) == 4


def test_a_batch_mixing_recorded_and_new_ids_is_refused(store: EventStore) -> None:
    recorded = new_event()
    store.append("s1", [recorded], expected_version=0)
    with pytest.raises(InvalidInputError, match="mixes"):
        store.append("s1", [recorded, new_event()], expected_version=1)
    assert store.current_version("s1") == 1


def test_an_event_id_recorded_in_another_stream_is_refused(store: EventStore) -> None:
    event = new_event()
    store.append("s1", [event], expected_version=0)
    with pytest.raises(InvalidInputError, match="another stream"):
        store.append("s2", [event], expected_version=0)
    assert store.stream_ids() == ["s1"]


@pytest.mark.parametrize(
    ("event_id", "reason"),
    [("not-a-uuid", "not a UUID"), ("5B0C3F4E-8D2A-4C1E-9F6B-2A7D1E3C4B5A", "lowercase")],
)
def test_malformed_event_ids_are_refused(store: EventStore, event_id: str, reason: str) -> None:
    with pytest.raises(InvalidInputError, match=reason):
        store.append("s1", [NewEvent(event_id, "DiceRolled", {})], expected_version=0)
    assert store.head_position() == 0


@pytest.mark.parametrize(
    ("stream_id", "event_type", "reason"),
    [
        ("s" * 201, "DiceRolled", "stream id is longer than 200"),
        ("", "DiceRolled", "stream id must be a non-empty string"),
        ("s1", "T" * 101, "event type is longer than 100"),
        ("a\x00b", "DiceRolled", "stream id .* holds a control character"),
        ("s1", "Dice\nRolled", "event type .* holds a control character"),
    ],
)
def test_names_the_schema_cannot_hold_are_refused_on_every_backend(
    store: EventStore, stream_id: str, event_type: str, reason: str
) -> None:
    # PostgreSQL enforces the column widths and SQLite does not: both must refuse alike.
    event = NewEvent(new_event().event_id, event_type, {"face": 4})
    with pytest.raises(InvalidInputError, match=reason):
        store.append(stream_id, [event], expected_version=0)
    assert store.head_position() == 0


def test_the_longest_stream_id_and_event_type_are_kept(store: EventStore) -> None:
    stream_id, event_type = "s" * 200, "T" * 100
    store.append(stream_id, [NewEvent(new_event().event_id, event_type, {})], 0)
    (recorded,) = store.read_stream(stream_id)
    assert (recorded.stream_id, recorded.event_type) == (stream_id, event_type)


def test_an_event_id_twice_in_one_batch_is_refused(store: EventStore) -> None:
    event = new_event()
    with pytest.raises(InvalidInputError, match="twice"):
        store.append("s1", [event, event], expected_version=0)
    assert store.current_version("s1") == 0


def test_a_batch_is_all_or_nothing(store: EventStore) -> None:
    with pytest.raises(InvalidInputError, match="float"):
        store.append("s1", [new_event(), new_event(total=2.5)], expected_version=0)
    assert store.current_version("s1") == 0
    assert list(store.read_all()) == []


def test_an_empty_batch_appends_nothing(store: EventStore) -> None:
    assert store.append("s1", [], expected_version=0) == []
    assert store.stream_ids() == []


def test_reads_start_where_asked(store: EventStore) -> None:
    store.append("a", [new_event() for _ in range(7)], expected_version=0)
    store.append("b", [new_event() for _ in range(4)], expected_version=0)
    store.append("a", [new_event() for _ in range(2)], expected_version=7)
    assert [r.stream_version for r in store.read_stream("a", from_version=5)] == [5, 6, 7, 8, 9]
    everything = list(store.read_all())
    assert len(everything) == 13
    positions = [r.position for r in everything]
    assert positions == sorted(set(positions))
    after = positions[5]
    assert list(store.read_all(after_position=after)) == everything[6:]
    assert list(store.read_all(after_position=positions[-1])) == []


def test_stream_ids_follow_the_order_of_first_events(store: EventStore) -> None:
    for stream in ["zeta", "alpha", "mid"]:
        store.append(stream, [new_event()], expected_version=0)
    store.append("alpha", [new_event()], expected_version=1)
    assert store.stream_ids() == ["zeta", "alpha", "mid"]


def test_import_into_another_store_keeps_every_field_but_position(
    store: EventStore,
) -> None:
    from diceledger.infra.store.memory import InMemoryEventStore

    source = InMemoryEventStore(clock=ticking_clock(datetime(2025, 5, 5, tzinfo=UTC)))
    source.append("a", [new_event(), new_event()], expected_version=0)
    source.append("b", [new_event(face=1)], expected_version=0)
    source.append("a", [new_event()], expected_version=2)
    store.append("local", [new_event()], expected_version=0)

    assert store.import_recorded(source.read_all()) == 4

    def strip(records: Iterable[RecordedEvent]) -> list[RecordedEvent]:
        return [replace(r, position=0) for r in records]

    assert strip(list(store.read_stream("a"))) == strip(list(source.read_stream("a")))
    assert strip(list(store.read_stream("b"))) == strip(list(source.read_stream("b")))
    assert verify_chain(store.read_all()) is None


def test_importing_twice_appends_nothing_the_second_time(store: EventStore) -> None:
    from diceledger.infra.store.memory import InMemoryEventStore

    source = InMemoryEventStore()
    source.append("a", [new_event() for _ in range(5)], expected_version=0)
    assert store.import_recorded(source.read_all()) == 5
    assert store.import_recorded(source.read_all()) == 0
    assert len(list(store.read_all())) == 5


def test_import_continues_a_stream_that_is_partly_present(store: EventStore) -> None:
    from diceledger.infra.store.memory import InMemoryEventStore

    source = InMemoryEventStore()
    source.append("a", [new_event() for _ in range(3)], expected_version=0)
    store.import_recorded(source.read_stream("a"))
    source.append("a", [new_event() for _ in range(2)], expected_version=3)
    assert store.import_recorded(source.read_all()) == 2
    assert store.current_version("a") == 5
    assert verify_chain(store.read_all()) is None


def test_a_tampered_import_is_refused_naming_the_event_and_keeps_nothing(
    store: EventStore,
) -> None:
    from diceledger.infra.store.memory import InMemoryEventStore

    source = InMemoryEventStore()
    source.append("a", [new_event() for _ in range(4)], expected_version=0)
    records = list(source.read_all())
    records[2] = replace(records[2], data={"face": 20})
    with pytest.raises(CorruptLogError, match=r"position 3 \(a v3\): hash does not match"):
        store.import_recorded(records)
    assert list(store.read_all()) == []


def test_an_import_with_a_stream_id_too_long_is_refused_even_with_a_valid_chain(
    store: EventStore,
) -> None:
    from diceledger.infra.store.memory import InMemoryEventStore

    source = InMemoryEventStore()
    source.append("a", [new_event()], expected_version=0)
    (record,) = source.read_all()
    forged = replace(record, stream_id="a" * 201)
    forged = replace(forged, hash=record_hash(forged))
    with pytest.raises(CorruptLogError, match="position 1: stream id is longer than 200"):
        store.import_recorded([forged])
    assert list(store.read_all()) == []


def test_an_import_that_does_not_link_to_the_stored_head_is_refused(store: EventStore) -> None:
    from diceledger.infra.store.memory import InMemoryEventStore

    store.append("a", [new_event()], expected_version=0)
    source = InMemoryEventStore()
    source.append("a", [new_event(), new_event()], expected_version=0)
    with pytest.raises(CorruptLogError, match="version 1 follows version 1"):
        store.import_recorded(source.read_all())
    assert store.current_version("a") == 1


def test_an_import_that_reuses_a_recorded_id_differently_is_refused(store: EventStore) -> None:
    from diceledger.infra.store.memory import InMemoryEventStore

    event = new_event()
    store.append("a", [event], expected_version=0)
    source = InMemoryEventStore()
    source.append("elsewhere", [event], expected_version=0)
    with pytest.raises(CorruptLogError, match="different contents"):
        store.import_recorded(source.read_all())
    assert store.stream_ids() == ["a"]


def test_imported_times_are_kept_as_the_same_instant_in_utc(store: EventStore) -> None:
    from diceledger.infra.store.memory import InMemoryEventStore

    source = InMemoryEventStore(clock=lambda: datetime(2026, 5, 1, 10, 0, 0, 5, tzinfo=UTC))
    source.append("a", [new_event()], expected_version=0)
    plus_two = timezone(timedelta(hours=2))
    # The same instant written with another offset, as an export from elsewhere might be.
    shifted = [
        replace(r, recorded_at=r.recorded_at.astimezone(plus_two)) for r in source.read_all()
    ]
    assert shifted[0].recorded_at.utcoffset() == timedelta(hours=2)
    assert store.import_recorded(shifted) == 1
    (imported,) = list(store.read_stream("a"))
    assert imported.recorded_at == datetime(2026, 5, 1, 10, 0, 0, 5, tzinfo=UTC)
    assert imported.recorded_at.utcoffset() == timedelta(0)
    assert verify_chain([imported]) is None

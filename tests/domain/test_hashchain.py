"""The hash chain: canonical JSON matches RFC 8785, and verification finds every break."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from enum import StrEnum

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st

from diceledger.domain.errors import InvalidInputError
from diceledger.domain.hashchain import (
    GENESIS_HASH,
    ChainHead,
    canonical_json,
    event_hash,
    format_timestamp,
    record_hash,
    verify_chain,
)
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.records import RecordedEvent

SAFE = 2**53 - 1
ascii_keys = st.text(alphabet=st.characters(max_codepoint=127), max_size=8)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-SAFE, max_value=SAFE)
    | st.text(alphabet=st.characters(exclude_categories=["Cs"]))
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ascii_keys, inner, max_size=4),
    max_leaves=20,
)
records = st.fixed_dictionaries(
    {
        "event_id": st.uuids().map(str),
        "stream_id": st.text(min_size=1, max_size=20),
        "stream_version": st.integers(min_value=1, max_value=10**6),
        "event_type": st.sampled_from(["DiceRolled", "SessionStarted", "Würfel"]),
        "schema_version": st.integers(min_value=1, max_value=5),
        "data": st.dictionaries(ascii_keys, json_values, max_size=5),
        "meta": st.dictionaries(ascii_keys, json_values, max_size=3),
        "recorded_at": st.just("2026-11-29T19:40:33.000000Z"),
        "prev_hash": st.just(GENESIS_HASH),
    }
)


@given(records)
def test_canonical_json_gives_the_rfc8785_bytes_for_event_records(record: JsonObject) -> None:
    assert canonical_json(record) == rfc8785.dumps(record)


@given(json_values)
def test_canonical_json_gives_the_rfc8785_bytes_for_any_event_value(value: JsonValue) -> None:
    assert canonical_json(value) == rfc8785.dumps(value)


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({"total": 1.5}, "float at $.total"),
        ({"faces": [1, 2.0]}, "float at $.faces[1]"),
        ({"name": "\ud800"}, "lone surrogate"),
        ({"big": 2**53}, "safe range"),
        ({1: "x"}, "non-string object key"),
        ({"when": datetime(2026, 1, 1, tzinfo=UTC)}, "type datetime"),
    ],
)
def test_canonical_json_refuses_values_outside_the_event_subset(
    value: object, fragment: str
) -> None:
    with pytest.raises(InvalidInputError, match="not canonical JSON") as raised:
        canonical_json(value)
    assert fragment in str(raised.value)


def test_str_enums_and_tuples_serialise_as_their_plain_values() -> None:
    class Kind(StrEnum):
        DAMAGE = "damage"

    assert canonical_json({"kind": Kind.DAMAGE, "faces": (3, 4)}) == canonical_json(
        {"kind": "damage", "faces": [3, 4]}
    )


def test_object_keys_outside_the_basic_multilingual_plane_are_refused() -> None:
    # RFC 8785 would order such a key by UTF-16 code units, unlike sort_keys.
    with pytest.raises(InvalidInputError, match="outside the BMP"):
        canonical_json({"\U0001f3b2": 1, "\uffff": 2})


def test_timestamps_render_in_utc_with_six_fractional_digits() -> None:
    plus_two = timezone(timedelta(hours=2))
    assert format_timestamp(datetime(2026, 11, 29, 21, 40, 33, tzinfo=plus_two)) == (
        "2026-11-29T19:40:33.000000Z"
    )
    assert format_timestamp(datetime(2026, 1, 2, 3, 4, 5, 7, tzinfo=UTC)).endswith("05.000007Z")


def test_a_naive_timestamp_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="timezone-aware"):
        format_timestamp(datetime(2026, 1, 1))


def test_event_hash_is_sha256_of_the_leaf_prefix_and_the_canonical_record() -> None:
    fields = {
        "event_id": "00000000-0000-4000-8000-000000000001",
        "stream_id": "s",
        "stream_version": 1,
        "event_type": "DiceRolled",
        "schema_version": 1,
        "data": {"face": 6},
        "meta": {},
        "prev_hash": GENESIS_HASH,
    }
    when = datetime(2026, 11, 29, 19, 40, 33, tzinfo=UTC)
    document = canonical_json({**fields, "recorded_at": "2026-11-29T19:40:33.000000Z"})
    expected = hashlib.sha256(b"\x00" + document).hexdigest()
    assert event_hash(**fields, recorded_at=when) == expected  # type: ignore[arg-type]


def make_chain(stream_id: str, length: int, first_position: int = 1) -> list[RecordedEvent]:
    chain: list[RecordedEvent] = []
    prev = GENESIS_HASH
    for version in range(1, length + 1):
        draft = RecordedEvent(
            position=first_position + version - 1,
            event_id=f"00000000-0000-4000-8000-{version:012d}",
            stream_id=stream_id,
            stream_version=version,
            event_type="DiceRolled",
            schema_version=1,
            data={"face": version % 6 + 1, "who": "Zoë"},
            meta={"actor": "gm"},
            recorded_at=datetime(2026, 11, 29, 19, 40, version, tzinfo=UTC),
            prev_hash=prev,
            hash="",
        )
        sealed = replace(draft, hash=record_hash(draft))
        chain.append(sealed)
        prev = sealed.hash
    return chain


def test_an_intact_chain_verifies() -> None:
    assert verify_chain(make_chain("s", 5)) is None


def test_interleaved_streams_verify_each_against_its_own_chain() -> None:
    left, right = make_chain("a", 3), make_chain("b", 3, first_position=4)
    interleaved = [left[0], right[0], left[1], right[1], right[2], left[2]]
    assert verify_chain(interleaved) is None


def test_changed_data_is_reported_at_its_position() -> None:
    chain = make_chain("s", 4)
    chain[2] = replace(chain[2], data={"face": 99, "who": "Zoë"})
    problem = verify_chain(chain)
    assert problem is not None
    assert (problem.position, problem.stream_version) == (3, 3)
    assert "hash does not match" in problem.reason


def test_a_gap_in_versions_is_reported() -> None:
    chain = make_chain("s", 4)
    problem = verify_chain([chain[0], chain[1], chain[3]])
    assert problem is not None
    assert problem.stream_version == 4
    assert "follows version 2" in problem.reason


def test_a_broken_link_is_reported_even_when_the_hash_is_recomputed() -> None:
    chain = make_chain("s", 3)
    relinked = replace(chain[1], prev_hash="f" * 64)
    chain[1] = replace(relinked, hash=record_hash(relinked))
    problem = verify_chain(chain)
    assert problem is not None
    assert "prev_hash" in problem.reason
    assert str(problem).startswith("position 2 (s v2)")


def test_a_chain_continues_from_a_given_head() -> None:
    chain = make_chain("s", 4)
    head = ChainHead(2, chain[1].hash)
    assert verify_chain(chain[2:], heads={"s": head}) is None
    assert verify_chain(chain[2:]) is not None

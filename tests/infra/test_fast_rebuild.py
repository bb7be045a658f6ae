"""The rebuild's fast paths give what the reference paths give.

A rebuild on SQLite reads each event's stored text (``read_all_data``), decodes it with
the codec's msgspec decoders and rates checks with odds cached by their canonical shape;
the reference is the pure fold over ``read_all`` records, and the decoding written out by
hand (``tests.infra.readable_codec``).
"""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceledger.domain.errors import CorruptLogError
from diceledger.domain.odds import opposed_odds, success_probability
from diceledger.domain.projections import facts
from diceledger.domain.projections.statistics import fold_statistics
from diceledger.domain.session import events as ev
from diceledger.domain.session.rolls import spec_of
from diceledger.infra.codec.events import decode
from diceledger.infra.projections.decoding import logged_all
from diceledger.infra.projections.schema import stat_counters, stat_members
from diceledger.infra.projections.statistics import StatisticsProjection
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.played_tables import play
from tests.infra.readable_codec import decode_by_hand

Counters = dict[tuple[str, str, str, str], int]


@contextmanager
def sqlite_store(template: Path) -> Iterator[tuple[SqlEventStore, sa.Engine]]:
    """A fresh store at the schema head, for one hypothesis example."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.sqlite"
        shutil.copyfile(template, path)
        engine = make_engine(f"sqlite:///{path}")
        try:
            yield SqlEventStore(engine, batch_size=64), engine
        finally:
            engine.dispose()


def tables(engine: sa.Engine) -> tuple[Counters, dict[tuple[str, str], str]]:
    with engine.connect() as connection:
        counters = connection.execute(sa.select(stat_counters)).all()
        members = connection.execute(sa.select(stat_members)).all()
    return (
        {(r.session_id, r.player, r.scope, r.metric): r.value for r in counters if r.value},
        {(r.session_id, r.name): r.role for r in members},
    )


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), events=st.integers(50, 900), batch=st.integers(1, 700))
def test_a_rebuild_from_stored_text_equals_the_reference_fold(
    _upgraded_sqlite_template: Path, seed: int, events: int, batch: int
) -> None:
    with sqlite_store(_upgraded_sqlite_template) as (store, engine):
        for _ in play(store, events, seed):
            pass
        projection = StatisticsProjection(engine, store, batch_size=batch)
        assert projection.rebuild() == store.head_position()
        assert projection.status().behind == 0
        reference = fold_statistics(logged_all(store.read_all()))
        assert tables(engine) == (reference.nonzero(), reference.members)


def test_read_all_data_yields_what_read_all_yields_on_every_store(sqlite_url: str) -> None:
    memory, engine = InMemoryEventStore(batch_size=7), make_engine(sqlite_url)
    try:
        sql = SqlEventStore(engine, batch_size=7)
        for store in (memory, sql):
            for _ in play(store, 200, seed=3):
                pass
            records = [
                (r.position, r.stream_id, r.stream_version, r.event_type, r.schema_version, r.data)
                for r in store.read_all(5)
            ]
            read = [(*item[:5], json.loads(item.data)) for item in store.read_all_data(5)]
            assert read == records
            assert len(records) == store.head_position() - 5
    finally:
        engine.dispose()


def played_data() -> list[tuple[str, int, dict[str, Any]]]:
    store = InMemoryEventStore()
    for _ in play(store, 400, seed=5):
        pass
    return [(r.event_type, r.schema_version, r.data) for r in store.read_all()]


PLAYED = played_data()
# Values a field may be changed to: every JSON type, and the lookalikes the checks refuse.
ODD_VALUES = st.sampled_from([None, True, False, 0, 1, -3, "", "x", [], [1], {}, {"a": 1}, 1.5])


def mutate(value: Any, rng: random.Random, odd: Any) -> Any:
    """Change one place in a JSON value: drop, add or replace a key or an item."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        choice = rng.randrange(4)
        if choice == 0:
            return {k: v for k, v in value.items() if k != key}
        if choice == 1:
            return {**value, f"{key}_extra": odd}
        if choice == 2:
            return {**value, key: odd}
        return {**value, key: mutate(value[key], rng, odd)}
    if isinstance(value, list) and value:
        index = rng.randrange(len(value))
        return [*value[:index], mutate(value[index], rng, odd), *value[index + 1 :]]
    return odd


def reference(event_type: str, version: int, data: dict[str, Any]) -> ev.Event | None:
    """Decode by hand, field by field; None if that refuses the data."""
    try:
        return decode_by_hand(event_type, version, data)
    except CorruptLogError:
        return None


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, len(PLAYED) - 1), salt=st.integers(), odd=ODD_VALUES)
def test_the_decoders_accept_and_refuse_exactly_what_the_readable_decoding_does(
    index: int, salt: int, odd: Any
) -> None:
    event_type, version, data = PLAYED[index]
    changed = mutate(data, random.Random(salt), odd)
    try:
        got: ev.Event | None = decode(event_type, version, changed)
    except CorruptLogError as error:
        assert error.args[0].startswith(f"{event_type} data does not fit the event: ")
        got = None
    assert got == reference(event_type, version, changed)


@pytest.mark.parametrize("event_type, version, data", PLAYED[:: max(1, len(PLAYED) // 60)])
def test_the_decoders_rebuild_every_played_event(
    event_type: str, version: int, data: dict[str, Any]
) -> None:
    assert decode(event_type, version, data) == reference(event_type, version, data)


LABELS = st.one_of(st.none(), st.sampled_from(["bless", "bane", "cover", "aid"]))
AMOUNTS = st.lists(st.builds(ev.Amount, st.integers(0, 2), LABELS), max_size=2).map(tuple)
SIDES = st.builds(
    ev.CheckSide,
    name=st.sampled_from(["ann", "bob", "ogre"]),
    expression=st.sampled_from(["1d20", "1d20+3", "1d20-1[STR]", "1d8+2", "2d6"]),
    advantage=AMOUNTS,
    disadvantage=AMOUNTS,
    eased=AMOUNTS,
    hindered=AMOUNTS,
)


# A request that only lends its kind, sides, median and exploding to the odds.
TEMPLATE = ev.RollRequested(
    **{f.name: None for f in dataclasses.fields(ev.RollRequested)}  # type: ignore[arg-type]
)


def request_of(
    kind: str, side: ev.CheckSide, opponent: ev.CheckSide | None, median: bool
) -> ev.RollRequested:
    return dataclasses.replace(
        TEMPLATE, kind=kind, side=side, opponent=opponent, median=median, exploding=True
    )


def luck(probability: Any) -> tuple[int, int]:
    return (
        round(probability * facts.SCALE),
        round(probability * (1 - probability) * facts.SCALE),
    )


@settings(max_examples=60, deadline=None)
@given(
    side=SIDES,
    other=SIDES,
    median=st.booleans(),
    target=st.integers(1, 25),
    rerolls=st.integers(0, 2),
)
def test_odds_cached_by_shape_are_the_odds_of_the_request_as_asked(
    side: ev.CheckSide, other: ev.CheckSide, median: bool, target: int, rerolls: int
) -> None:
    check = request_of("check", side, None, median)
    try:
        expected: Any = luck(success_probability(spec_of(check, side), target, rerolls))
    except Exception as error:  # the cache must fail (or not) as the direct computation does
        expected = type(error)
    try:
        got: Any = facts.check_luck(facts._shape(check, side), target, rerolls)
    except Exception as error:
        got = type(error)
    assert got == expected or (got is None and expected.__name__ == "RollError")

    opposed = request_of("opposed", side, other, median)
    try:
        odds = opposed_odds(spec_of(opposed, side), spec_of(opposed, other), rerolls, 1)
        expected = (luck(odds.win), luck(odds.lose))
    except Exception as error:
        expected = type(error)
    shapes = facts._shape(opposed, side), facts._shape(opposed, other)
    try:
        got = facts.opposed_luck(*shapes, rerolls, 1)
    except Exception as error:
        got = type(error)
    assert got == expected or (got is None and expected.__name__ == "RollError")

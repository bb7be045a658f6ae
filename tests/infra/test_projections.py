"""The persisted statistics projection: incremental catch-ups equal a rebuild from 0."""

from __future__ import annotations

import random

import sqlalchemy as sa

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.projections.statistics import fold_statistics
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.text import MAX_TEXT
from diceledger.infra.projections.decoding import logged_all
from diceledger.infra.projections.schema import stat_counters
from diceledger.infra.projections.statistics import StatisticsProjection
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.memory import InMemoryEventStore
from tests.infra.played_tables import Table, play
from tests.infra.support import catch_up_overtaken


def counters(projection: StatisticsProjection) -> dict[tuple[str, str, str, str], int]:
    with projection.engine.connect() as connection:
        rows = connection.execute(sa.select(stat_counters)).all()
    return {(r.session_id, r.player, r.scope, r.metric): r.value for r in rows if r.value}


def test_incremental_catch_ups_equal_a_rebuild_and_the_pure_fold(sql_url: str) -> None:
    store, engine = InMemoryEventStore(batch_size=100), make_engine(sql_url)
    try:
        for _ in play(store, 3000):
            # A new projection each time, as each `stats` process builds its own; small
            # batches and few cached sessions make it reload sessions from their streams.
            projection = StatisticsProjection(engine, store, batch_size=97)
            projection.catch_up()
        assert projection.status().behind == 0
        incremental = counters(projection)
        assert projection.rebuild() == store.head_position() >= 3000
        assert counters(projection) == incremental
        assert fold_statistics(logged_all(store.read_all())).nonzero() == incremental
        metrics = {metric for (_, _, _, metric) in incremental}
        assert {"excluded.voided", "excluded.hidden", "rerolls.gain", "won.opposed"} <= metrics
    finally:
        engine.dispose()


def test_an_updater_overtaken_midway_drops_its_batch_instead_of_counting_twice(
    sqlite_url: str,
) -> None:
    store, engine = InMemoryEventStore(), make_engine(sqlite_url)
    try:
        for _ in play(store, 800):
            pass
        slow = StatisticsProjection(engine, store, batch_size=100)
        fast = StatisticsProjection(engine, store, batch_size=100)
        assert len(catch_up_overtaken(slow, fast)) == 1 and slow.status().behind == 0
        caught_up = counters(slow)
        slow.rebuild()
        assert counters(slow) == caught_up
    finally:
        engine.dispose()


def test_status_shows_the_checkpoint_against_the_head(sqlite_url: str) -> None:
    store, engine = InMemoryEventStore(), make_engine(sqlite_url)
    try:
        projection = StatisticsProjection(engine, store, batch_size=50)
        for _ in play(store, 120):
            pass
        before = projection.status()
        assert (before.checkpoint, before.behind) == (0, store.head_position())
        projection.catch_up()
        after = projection.status()
        assert after.checkpoint == after.head == store.head_position()
        assert after.behind == 0
    finally:
        engine.dispose()


def test_a_player_with_the_longest_name_allowed_is_counted(sql_url: str) -> None:
    # PostgreSQL enforces column widths: the tables must hold every name the domain takes.
    store, engine = InMemoryEventStore(), make_engine(sql_url)
    name = "n" * MAX_TEXT
    try:
        table = Table(store, "long-names", random.Random(5))
        table.run(name, cmd.JoinSession(name))
        table.run(name, cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10)))
        projection = StatisticsProjection(engine, store)
        projection.catch_up()
        assert counters(projection)[("long-names", name, "all", "rolls.check")] == 1
    finally:
        engine.dispose()

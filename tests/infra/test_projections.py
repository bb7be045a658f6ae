"""The persisted statistics projection: incremental catch-ups equal a rebuild from 0."""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from domain.dice.sources import DiceSource, SeededSource
from domain.errors import DiceledgerError
from domain.projections.statistics import fold_statistics
from domain.session import commands as cmd
from domain.session.context import Context
from domain.session.decide import decide
from domain.session.events import Amount, CheckSide
from domain.session.state import AWAITING, SessionState, evolve
from infra.codec import new_event
from infra.db import make_engine, upgrade
from infra.projections.decoding import logged_all
from infra.projections.schema import stat_counters
from infra.projections.statistics import StatisticsProjection
from infra.store.memory import InMemoryEventStore
from infra.store.port import EventStore

SEED = b"q" * 32
PLAYERS = ["ann", "bob", "cy"]


class Table:
    """One session played by random commands, appended through the store's own append."""

    def __init__(self, store: EventStore, session_id: str, rng: random.Random) -> None:
        self.store, self.session_id, self.rng = store, session_id, rng
        self.state = SessionState()
        self.run("gm", cmd.StartSession(session_id, "T", hashlib.sha256(SEED).hexdigest()))
        for name in PLAYERS:
            self.run(name, cmd.JoinSession(name))

    def run(self, actor: str, command: cmd.Command) -> None:
        def dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
            return SeededSource(SEED, self.session_id, nonce, client_seed, salt)

        try:
            events = decide(self.state, command, Context(actor, dice))
        except DiceledgerError:
            return
        meta = {"actor": actor}
        envelopes = [new_event(e, str(uuid.uuid4()), meta) for e in events]
        self.store.append(self.session_id, envelopes, self.state.version)
        for event in events:
            evolve(self.state, self.state.version + 1, event)

    def play(self) -> None:
        rng, state, who = self.rng, self.state, self.rng.choice(PLAYERS)
        pick = rng.random()
        rolls = list(state.rolls.values())
        if pick < 0.3:
            adv = (Amount(1),) if rng.random() < 0.3 else ()
            self.run(
                who, cmd.RequestRoll("check", "1d20+2", advantage=adv, target=rng.randint(8, 18))
            )
        elif pick < 0.45:
            self.run(
                who,
                cmd.RequestRoll(
                    "damage", "2d6", rerolls=rng.choice([0, 1, 2]), reroll_scope="damage"
                ),
            )
        elif pick < 0.55:
            waiting = [r for r in rolls if r.status == AWAITING and r.request.roller == who]
            if waiting:
                self.run(who, cmd.Reroll(waiting[0].roll_id, (rng.choice([0, 1]),)))
        elif pick < 0.65:
            other = rng.choice(["orc", *[p for p in PLAYERS if p != who]])
            actor = "gm" if other == "orc" else who
            self.run(actor, cmd.RequestOpposed(CheckSide(who, "1d20+1"), CheckSide(other, "1d20")))
        elif pick < 0.72:
            self.run(
                "gm", cmd.RequestRoll("check", "1d20", target=10, blind=True, on_behalf_of=who)
            )
        elif pick < 0.77:
            hidden = [r.roll_id for r in rolls if r.hidden]
            if hidden:
                self.run("gm", cmd.RevealRoll(rng.choice(hidden)))
        elif pick < 0.85:
            open_ = [r.roll_id for r in rolls if r.open_dispute]
            if open_:
                self.run("gm", cmd.ResolveDispute(open_[0], rng.choice(["upheld", "voided"])))
            elif rolls:
                self.run(who, cmd.OpenDispute(rng.choice(rolls).roll_id, "odd"))
        else:
            self.run(who, cmd.RequestRoll("effect", "1d4+1d8"))


def play(store: EventStore, events: int, seed: int = 11) -> Iterator[None]:
    """Play four interleaved tables until ``events`` events exist, pausing now and then."""
    rng = random.Random(seed)
    tables = [Table(store, f"t{n}-{seed}", random.Random(rng.random())) for n in range(4)]
    while store.head_position() < events:
        rng.choice(tables).play()
        if rng.random() < 0.05:
            yield
    tables[0].run("gm", cmd.EndSession(SEED))
    yield


def counters(projection: StatisticsProjection) -> dict[tuple[str, str, str, str], int]:
    with projection.engine.connect() as connection:
        rows = connection.execute(sa.select(stat_counters)).all()
    return {(r.session_id, r.player, r.scope, r.metric): r.value for r in rows if r.value}


@pytest.fixture(params=["sqlite_url", pytest.param("postgres_url", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest) -> str:
    value: str = request.getfixturevalue(request.param)
    upgrade(value)
    return value


def test_incremental_catch_ups_equal_a_rebuild_and_the_pure_fold(url: str) -> None:
    store, engine = InMemoryEventStore(batch_size=100), make_engine(url)
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
        calls: list[int] = []

        def overtake(done: int) -> None:
            calls.append(done)
            if len(calls) == 1:
                fast.catch_up()

        slow.catch_up(overtake)
        assert len(calls) == 1 and slow.status().behind == 0
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

"""The lean statistics fold counts what the domain's fold counts, on randomly played sessions.

The domain fold (domain/projections/statistics.py) is the readable statement of the
counting rules; the lean fold, over the few fields it decodes, is what the product runs.
Sessions are played through the real decide with every kind of roll, every mode, reveals,
disputes (some after the end), rerolls and characters whose sheets the rolls read. Dice
come from a fixed seed, and each example's choices from its hypothesis-drawn number.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.dice.sources import DiceSource, SeededSource
from diceledger.domain.errors import CorruptLogError, DiceledgerError
from diceledger.domain.projections.logged import Logged
from diceledger.domain.projections.report import Visible, visible_counters
from diceledger.domain.projections.statistics import StatisticsFold, Tally
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.state import AWAITING, SessionState, evolve
from diceledger.infra.codec import stat_records as rec
from diceledger.infra.codec.events import new_event
from diceledger.infra.codec.stat_records import stat_record
from diceledger.infra.projections.decoding import logged_all
from diceledger.infra.projections.lean_statistics import Changes, LeanStatisticsFold, LoadHistory
from diceledger.infra.projections.queries import character_counters, folded_counters
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.store.port import EventData, event_data

SEED = b"s" * 32
PLAYERS = ["ann", "bob", "cy"]
START = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


class Table:
    """One session played by commands picked at random; refused commands are skipped."""

    def __init__(self, store: InMemoryEventStore, session_id: str, rng: random.Random) -> None:
        self.store, self.session_id, self.rng = store, session_id, rng
        self.state = SessionState()
        self.clock = START
        self.run("gm", cmd.StartSession(session_id, "T", hashlib.sha256(SEED).hexdigest()))
        for name in PLAYERS:
            self.run(name, cmd.JoinSession(name))

    def run(self, actor: str, command: cmd.Command) -> None:
        def dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
            return SeededSource(SEED, self.session_id, nonce, client_seed, salt)

        self.clock += timedelta(seconds=30)
        try:
            events = decide(self.state, command, Context(actor, dice, now=self.clock))
        except DiceledgerError:
            return
        envelopes = [new_event(e, str(uuid.uuid4()), {"actor": actor}) for e in events]
        self.store.append(self.session_id, envelopes, self.state.version)
        for event in events:
            evolve(self.state, self.state.version + 1, event)

    def play(self) -> None:
        rng, rolls, who = self.rng, list(self.state.rolls.values()), self.rng.choice(PLAYERS)
        mode = rng.choice(list(RollMode))
        pick = rng.randrange(12)
        if pick == 0:
            adv = (Amount(rng.randint(1, 2)),) if rng.random() < 0.4 else ()
            target = Target(rng.randint(6, 18))
            expression = rng.choice(["1d20+2", "1d20+@STR", "1d20"])
            check = cmd.RequestRoll(
                RollKind.CHECK, expression, advantage=adv, target=target, mode=mode
            )
            self.run(who, check)
        elif pick == 1:
            rerolls = rng.choice([0, 1, 2])
            damage = cmd.RequestRoll(
                RollKind.DAMAGE, "2d6", rerolls=rerolls, reroll_scope=RerollScope.DAMAGE, mode=mode
            )
            self.run(who, damage)
        elif pick == 2:
            waiting = [r for r in rolls if r.status == AWAITING and r.request.roller == who]
            if waiting:
                roll = waiting[0]
                if rng.random() < 0.7:
                    self.run(who, cmd.Reroll(roll.roll_id, (rng.choice([0, 1]),)))
                else:
                    self.run(who, cmd.Accept(roll.roll_id))
        elif pick == 3:
            other = rng.choice(["orc", *[p for p in PLAYERS if p != who]])
            actor = "gm" if other == "orc" else who
            ours = rng.choice(["1d20+1", "1d20+@STR"])
            opposed = cmd.RequestOpposed(
                CheckSide(who, ours),
                CheckSide(other, "1d20"),
                mode=mode,
                rerolls=rng.choice([0, 1]),
            )
            self.run(actor, opposed)
        elif pick == 4:
            blind = cmd.RequestRoll(
                RollKind.SAVE, "1d20", target=Target(10), mode=mode, on_behalf_of=who
            )
            self.run("gm", blind)
        elif pick == 5:
            hidden = [r for r in rolls if r.hidden]
            if hidden:
                roll = rng.choice(hidden)
                self.run(roll.request.roller, cmd.RevealRoll(roll.roll_id))
                self.run("gm", cmd.RevealRoll(roll.roll_id))
        elif pick == 6:
            open_ = [r.roll_id for r in rolls if r.open_dispute]
            if open_:
                self.run("gm", cmd.ResolveDispute(open_[0], rng.choice(list(cmd.Ruling))))
            elif rolls:
                self.run(who, cmd.OpenDispute(rng.choice(rolls).roll_id, "odd"))
        elif pick == 7:
            character = f"{who}-hero{rng.randint(1, 2)}"
            self.run(who, cmd.CreateCharacter(character, who))
            self.run(who, cmd.SetAttribute(character, "STR", rng.randint(-1, 4)))
        elif pick == 8:
            owned = [c for c in self.state.characters.values() if not c.retired]
            if owned:
                retiring = rng.choice(owned)
                self.run(retiring.owner or "gm", cmd.RetireCharacter(retiring.name))
        elif pick == 9:
            self.run("gm", cmd.CreateCharacter("orc", None))
            self.run("gm", cmd.SetAttribute("orc", "STR", 2))
        elif pick == 10:
            self.run(who, cmd.RequestRoll(RollKind.EFFECT, "1d4+1d8", mode=mode))
        else:
            npc = cmd.RequestRoll(
                RollKind.CHECK, "1d20+@STR", target=Target(12), on_behalf_of="orc", mode=mode
            )
            self.run("gm", npc)

    def end(self) -> None:
        self.run("gm", cmd.EndSession(SEED))


def played(seed: int, steps: int) -> InMemoryEventStore:
    """Play two interleaved tables; the first ends and then takes late disputes."""
    store, rng = InMemoryEventStore(), random.Random(seed)
    tables = [Table(store, f"t{n}-{seed}", random.Random(rng.random())) for n in range(2)]
    for _ in range(steps):
        rng.choice(tables).play()
    first = tables[0]
    first.end()
    for roll_id in list(first.state.rolls)[:2]:
        first.run("bob", cmd.OpenDispute(roll_id, "late"))
        first.run("gm", cmd.ResolveDispute(roll_id, cmd.Ruling.VOIDED))
    tables[1].play()
    return store


def domain_fold(store: InMemoryEventStore, by_character: bool, own_of: str | None = None) -> Tally:
    def history(session_id: str, version: int) -> Iterator[Logged]:
        return (i for i in logged_all(store.read_stream(session_id)) if i.version <= version)

    fold, tally = StatisticsFold(history, by_character=by_character, own_of=own_of), Tally()
    for item in logged_all(store.read_all()):
        fold.apply(item, tally)
    return tally


def lean_history(store: InMemoryEventStore) -> LoadHistory:
    def history(session_id: str, version: int) -> Iterator[EventData]:
        return (event_data(r) for r in store.read_stream(session_id) if r.stream_version <= version)

    return history


def lean_fold(
    store: InMemoryEventStore,
    by_character: bool,
    batch: int | None = None,
    own_of: str | None = None,
) -> tuple[dict[tuple[str, str, str, str], int], dict[tuple[str, str], str]]:
    """Fold the whole log; with ``batch``, a fresh fold per batch that reloads sessions."""
    items = list(store.read_all_data())
    size = batch or len(items)
    total: dict[tuple[str, str, str, str], int] = {}
    members: dict[tuple[str, str], str] = {}
    for start in range(0, len(items), size):
        fold = LeanStatisticsFold(
            lean_history(store), max_sessions=1, by_character=by_character, own_of=own_of
        )
        changes = Changes()
        for item in items[start : start + size]:
            fold.apply(item, changes)
        for key, amount in changes.nonzero().items():
            total[key] = total.get(key, 0) + amount
        members.update(changes.members)
    return {k: v for k, v in total.items() if v}, members


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(5, 90), batch=st.integers(1, 40))
def test_the_lean_fold_counts_every_counter_and_role_as_the_domain_fold(
    seed: int, steps: int, batch: int
) -> None:
    store = played(seed, steps)
    for by_character, own_of in ((False, None), (True, None), (True, "ann")):
        reference = domain_fold(store, by_character, own_of)
        expected = (reference.nonzero(), reference.members)
        assert lean_fold(store, by_character, own_of=own_of) == expected
        assert lean_fold(store, by_character, batch, own_of) == expected


def visible_rows(tally: Tally, viewer: str, sessions: set[str]) -> list[Visible]:
    """The counters of a reference fold that ``viewer`` may see, by the domain's rule."""
    rows = visible_counters(tally.nonzero().items(), tally.members, viewer)
    return sorted(row for row in rows if row[0] in sessions)


def test_statistics_counted_from_the_log_itself_take_disputes_after_the_end() -> None:
    # A store that may not be written is counted in memory, and a campaign's characters
    # always are: a session's late dispute used to stop both ("arrived without its history").
    store = played(seed=3, steps=40)
    ended = "t0-3"
    known, rows = folded_counters(store, "gm", session_id=ended)
    assert known
    assert sorted(rows) == visible_rows(domain_fold(store, False), "gm", {ended})
    assert any(metric == "excluded.voided" for _, _, metric, _ in rows)
    characters = character_counters(store, "gm", [ended])
    assert sorted(characters) == visible_rows(domain_fold(store, True), "gm", {ended})


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(5, 60))
def test_a_player_counted_from_the_log_itself_sees_their_own_private_rolls(
    seed: int, steps: int
) -> None:
    # A player's own gm and self rolls are in their own figures (scope own), as the domain's
    # report has it; counting from the log itself used to keep the public scope alone.
    store = played(seed, steps)
    reference = domain_fold(store, False)
    sessions = {s for s, _ in reference.members}
    for viewer in PLAYERS:
        _, rows = folded_counters(store, viewer)
        assert sorted(rows) == visible_rows(reference, viewer, sessions), viewer


DIE = {
    "index": 0,
    "term": 0,
    "slot": 0,
    "sides": 6,
    "face": 4,
    "reason": "reroll",
    "step": 0,
    "parent": None,
    "source": "seeded",
    "epoch": 1,
    "nonce": 7,
    "block": 0,
    "word": 1,
}


def test_a_field_the_statistics_read_is_checked_and_a_bad_one_is_a_corrupt_log() -> None:
    good = json.dumps({"roll_id": 3, "by": "ann", "reason": "odd", "at": None})
    assert stat_record("RollDisputed", 2, good) == rec.Disputed(3, "ann")
    for bad, why in (
        ({"roll_id": True, "by": "ann"}, "Expected `int`, got `bool`"),
        ({"roll_id": 3}, "Object missing required field `by`"),
    ):
        with pytest.raises(
            CorruptLogError, match=f"RollDisputed data does not fit the event: {why}"
        ):
            stat_record("RollDisputed", 2, json.dumps(bad))
    with pytest.raises(CorruptLogError, match="unknown event type 'RollForgotten'"):
        stat_record("RollForgotten", 1, "{}")
    with pytest.raises(CorruptLogError, match="RollDisputed version 3 is newer than this release"):
        stat_record("RollDisputed", 3, good)


def test_an_older_schema_version_is_upcast_before_the_statistics_read_it() -> None:
    # DieRerolled version 1 had no side or round: it is the first side's, in round one.
    old = json.dumps({"roll_id": 2, "die": DIE, "replaced": 0})
    assert stat_record("DieRerolled", 1, old) == rec.Rerolled(
        2, rec.Die(6, 4, "reroll", 0, None, "seeded", 0, 1), replaced=0, side=0, round=1
    )


def test_events_the_statistics_never_read_are_passed_undecoded() -> None:
    assert stat_record("SeedRevealed", 1, "not even JSON") is None

"""Fill a store with N events of realistic sessions, through the real decide and codec.

Several tables play at once (their events interleave in the log, as on a club's server).
Each session: a GM and three to five players join; then checks (some with advantage,
median or a DC), saves, damage rolls that spend rerolls, effect rolls, opposed checks
against NPCs and other players, blind GM rolls (most revealed later), disputes (some
voided), an occasional mid-session seed reveal; then the session ends.

Commands are decided by the domain exactly as the session service decides them; their
events are encoded by infra.codec.events and chained with the real hash formula
(``domain.hashchain``: SHA-256 of 0x00 and the canonical JSON of the record). The bulk
path differs from ``append`` in two ways only, both for speed: it skips the per-value
JSON checks (the codec's output passes them by construction; they cost about 1 ms per
event here), and it inserts rows with the store's table and row mapper in transactions of
``CHUNK`` events. ``--verify`` reads the store back and checks every chain with
``domain.hashchain.verify_chain``.

Run: .venv/bin/python bench/make_store.py --events 1000000 --db sqlite:////tmp/big.db
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlib.bulk_fill import chained

from diceledger.domain.dice.request import Target
from diceledger.domain.dice.sources import DiceSource, SeededSource
from diceledger.domain.errors import DiceledgerError
from diceledger.domain.hashchain import (
    ChainHead,
    verify_chain,
)
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.state import AWAITING, SessionState, evolve
from diceledger.infra.codec.events import new_event
from diceledger.infra.store.database import make_engine, upgrade, write_connection
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events as events_table
from diceledger.infra.store.sql import SqlEventStore

CHUNK = 20_000
TABLES = 8
NAMES = ["ann", "bob", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo", "kai", "lu"]
CHECK_EXPRESSIONS = ["1d20+3", "1d20+5", "1d20+1", "1d20-1", "1d20+2[STR]", "1d20+4"]
DAMAGE_EXPRESSIONS = ["2d6+3", "1d8+2", "1d10", "2d4+1", "1d12+1", "3d6"]
NPCS = ["goblin", "ogre", "banshee", "bandit"]


@dataclass
class Table:
    """One session being played: its state, seeds, chain head and script of commands."""

    session_id: str
    gm: str
    players: list[str]
    rng: random.Random
    seeds: list[bytes] = field(default_factory=list)
    state: SessionState = field(default_factory=SessionState)
    head: ChainHead = field(default_factory=ChainHead)
    commands_left: int = 0


class Generator:
    """Play several tables at once and yield their sealed records in log order."""

    def __init__(self, seed: int, start: datetime) -> None:
        self.rng = random.Random(seed)
        self.clock = start
        self.count = 0

    def new_seed(self) -> bytes:
        return self.rng.getrandbits(256).to_bytes(32, "big")

    def new_table(self) -> Table:
        self.count += 1
        players = self.rng.sample(NAMES, self.rng.randint(3, 5))
        table = Table(
            f"table-{self.count:06d}-{self.rng.getrandbits(24):06x}",
            f"gm{self.count % 50}",
            players,
            random.Random(self.rng.getrandbits(64)),
        )
        table.commands_left = self.rng.randint(150, 450)
        return table

    def records(self) -> Iterator[RecordedEvent]:
        tables = [self.new_table() for _ in range(TABLES)]
        for table in tables:
            yield from self.begin(table)
        while True:
            table = self.rng.choice(tables)
            if table.commands_left <= 0:
                yield from self.finish(table)
                tables[tables.index(table)] = table = self.new_table()
                yield from self.begin(table)
                continue
            table.commands_left -= 1
            yield from self.play(table)

    def begin(self, table: Table) -> Iterator[RecordedEvent]:
        seed = self.new_seed()
        table.seeds.append(seed)
        commitment = hashlib.sha256(seed).hexdigest()
        start = cmd.StartSession(table.session_id, f"Night {self.count}", commitment)
        yield from self.run(table, table.gm, start)
        for name in table.players:
            yield from self.run(table, name, cmd.JoinSession(name, f"{name}'s words"))

    def finish(self, table: Table) -> Iterator[RecordedEvent]:
        yield from self.run(table, table.gm, cmd.EndSession(table.seeds[-1]))

    def play(self, table: Table) -> Iterator[RecordedEvent]:
        rng, state = table.rng, table.state
        who = rng.choice(table.players)
        dice = rng.random()
        if dice < 0.35:
            yield from self.run(table, who, self.check(rng, "check"))
        elif dice < 0.45:
            yield from self.run(table, who, self.check(rng, "save"))
        elif dice < 0.70:
            rerolls = rng.choice([0, 0, 1, 2])
            command = cmd.RequestRoll(
                "damage",
                rng.choice(DAMAGE_EXPRESSIONS),
                rerolls=rerolls,
                reroll_scope="damage",
                auto_reroll=rerolls > 0 and rng.random() < 0.7,
            )
            yield from self.run(table, who, command)
        elif dice < 0.78:
            yield from self.run(table, who, cmd.RequestRoll("effect", rng.choice(["1d4", "1d6+1"])))
        elif dice < 0.88:
            other = rng.choice([*NPCS, *[p for p in table.players if p != who]])
            actor = who if other not in NPCS else table.gm
            opposed = cmd.RequestOpposed(
                CheckSide(who, rng.choice(CHECK_EXPRESSIONS)),
                CheckSide(other, rng.choice(CHECK_EXPRESSIONS)),
            )
            yield from self.run(table, actor, opposed)
        elif dice < 0.92:
            blind = cmd.RequestRoll(
                "check",
                "1d20+2",
                target=Target(rng.randint(8, 18)),
                mode=RollMode.BLIND,
                on_behalf_of=who,
            )
            yield from self.run(table, table.gm, blind)
        elif dice < 0.95:
            hidden = [r.roll_id for r in state.rolls.values() if r.hidden and r.resolution]
            if hidden:
                yield from self.run(table, table.gm, cmd.RevealRoll(rng.choice(hidden)))
        elif dice < 0.975:
            yield from self.dispute(table, who)
        elif dice < 0.98:
            seed = self.new_seed()
            table.seeds.append(seed)
            reveal = cmd.RevealSeed(table.seeds[-2], hashlib.sha256(seed).hexdigest())
            yield from self.run(table, table.gm, reveal)
        else:
            waiting = [
                r for r in state.rolls.values() if r.status == AWAITING and r.request.roller == who
            ]
            if waiting:
                roll = rng.choice(waiting)
                yield from self.run(table, who, cmd.Reroll(roll.roll_id, (0,)))

    @staticmethod
    def check(rng: random.Random, kind: str) -> cmd.RequestRoll:
        advantage = (Amount(rng.choice([1, 1, 2]), "flank"),) if rng.random() < 0.2 else ()
        disadvantage = (Amount(1, "dark"),) if rng.random() < 0.1 else ()
        dc = rng.random() < 0.5
        modifier = rng.randint(-1, 5)
        return cmd.RequestRoll(
            kind,
            rng.choice(CHECK_EXPRESSIONS),
            advantage=advantage,
            disadvantage=disadvantage,
            median=rng.random() < 0.05,
            target=Target.dc(modifier, "WIS") if dc else Target(rng.randint(8, 20)),
            against="trap" if kind == "save" else None,
            eased=(Amount(2, "bless"),) if rng.random() < 0.1 else (),
        )

    def dispute(self, table: Table, who: str) -> Iterator[RecordedEvent]:
        rng, state = table.rng, table.state
        open_ = [r for r in state.rolls.values() if r.open_dispute]
        if open_:
            outcome = "voided" if rng.random() < 0.3 else "upheld"
            ruling = cmd.ResolveDispute(rng.choice(open_).roll_id, outcome)
            yield from self.run(table, table.gm, ruling)
            return
        candidates = [
            r.roll_id
            for r in state.rolls.values()
            if r.resolution and not r.hidden and not r.disputes and not r.voided
        ]
        if candidates:
            yield from self.run(table, who, cmd.OpenDispute(rng.choice(candidates), "odd"))

    def run(self, table: Table, actor: str, command: cmd.Command) -> Iterator[RecordedEvent]:
        state = table.state

        def dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
            return SeededSource(table.seeds[-1], table.session_id, nonce, client_seed, salt)

        try:
            events = decide(state, command, Context(actor, dice))
        except DiceledgerError:
            return  # a command the rules refuse appends nothing, as in the service
        meta = {"actor": actor, "correlation_id": str(uuid.uuid4()), "client_version": "bench"}
        envelopes = [new_event(e, str(uuid.uuid4()), meta) for e in events]
        self.clock += timedelta(milliseconds=self.rng.randint(200, 20_000))
        for envelope, event in zip(envelopes, events, strict=True):
            record = chained(table.session_id, envelope, table.head, self.clock)
            evolve(state, record.stream_version, event)
            table.head = ChainHead(record.stream_version, record.hash)
            yield record


def fill(url: str, events: int, seed: int) -> int:
    """Write ``events`` events of generated sessions to the store at ``url``."""
    upgrade(url)
    engine = make_engine(url)
    source = Generator(seed, datetime(2026, 1, 1, tzinfo=UTC)).records()
    written = 0
    while written < events:
        chunk = [to_row(next(source)) for _ in range(min(CHUNK, events - written))]
        with write_connection(engine) as connection, connection.begin():
            connection.execute(events_table.insert(), chunk)
        written += len(chunk)
        print(f"\r{written:,} events", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return written


def verify(url: str) -> str:
    """Check every stream's chain in the store; return 'ok' or the first problem."""
    store = SqlEventStore(make_engine(url))
    problem = verify_chain(store.read_all())
    return "ok" if problem is None else str(problem)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000, help="How many events to write.")
    parser.add_argument("--db", required=True, help="Database URL, e.g. sqlite:////tmp/big.db")
    parser.add_argument("--seed", type=int, default=1, help="Seed of the generated sessions.")
    parser.add_argument("--verify", action="store_true", help="Verify every chain afterwards.")
    options = parser.parse_args()
    started = time.perf_counter()
    written = fill(options.db, options.events, options.seed)
    seconds = time.perf_counter() - started
    print(f"wrote {written:,} events in {seconds:.1f} s to {options.db}")
    if options.verify:
        print(f"hash chains: {verify(options.db)}")


if __name__ == "__main__":
    main()

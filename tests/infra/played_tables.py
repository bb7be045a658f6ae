"""Random tables played through the real decide, for tests that need a realistic log."""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import Iterator

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.dice.sources import DiceSource, SeededSource
from diceledger.domain.errors import DiceledgerError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.state import AWAITING, SessionState, evolve
from diceledger.infra.codec.events import new_event
from diceledger.infra.store.port import EventStore

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
                who,
                cmd.RequestRoll(
                    RollKind.CHECK, "1d20+2", advantage=adv, target=Target(rng.randint(8, 18))
                ),
            )
        elif pick < 0.45:
            self.run(
                who,
                cmd.RequestRoll(
                    RollKind.DAMAGE,
                    "2d6",
                    rerolls=rng.choice([0, 1, 2]),
                    reroll_scope=RerollScope.DAMAGE,
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
                "gm",
                cmd.RequestRoll(
                    RollKind.CHECK, "1d20", target=Target(10), mode=RollMode.BLIND, on_behalf_of=who
                ),
            )
        elif pick < 0.77:
            hidden = [r.roll_id for r in rolls if r.hidden]
            if hidden:
                self.run("gm", cmd.RevealRoll(rng.choice(hidden)))
        elif pick < 0.85:
            open_ = [r.roll_id for r in rolls if r.open_dispute]
            if open_:
                self.run("gm", cmd.ResolveDispute(open_[0], rng.choice(list(cmd.Ruling))))
            elif rolls:
                self.run(who, cmd.OpenDispute(rng.choice(rolls).roll_id, "odd"))
        else:
            self.run(who, cmd.RequestRoll(RollKind.EFFECT, "1d4+1d8"))


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

"""verify decides every command again: whatever an honest table plays must still verify.

Random tables play every kind of command through the real service (refusals included,
which append nothing): rolls of every kind with typed-in and seeded dice, the default
reroll policy and rerolls by hand, accepts, opposed ties, opposed checks whose sides
reroll (by whoever may, and refused to whoever may not), blind rolls, seed reveals,
disputes, voids and replacements, the end with rolls still waiting, and disputes after
it. Each log must verify clean, and a log cut anywhere must not name a rule it keeps.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.errors import DiceledgerError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.opposed import side_roller, waiting_side
from diceledger.domain.session.state import AWAITING, Roll, SessionState
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.codec.events import from_record
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.vault.seeds import InMemorySeedVault

PLAYERS = ["ann", "bob", "cy"]
EXPRESSIONS = ["1d20+2", "2d6", "1d4+1d8", "3d4", "(2d6+3)/2", "1d6"]


class Clock:
    """A clock that moves a minute a call, so a dispute window can open and close."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


def amounts(rng: random.Random) -> tuple[Amount, ...]:
    return tuple(
        Amount(rng.randint(0, 2), rng.choice([None, "x"])) for _ in range(rng.randint(0, 2))
    )


def a_roll(rng: random.Random, who: str) -> cmd.RequestRoll:
    kind = rng.choice([RollKind.EFFECT, RollKind.DAMAGE, RollKind.CHECK, RollKind.SAVE])
    checked = kind in ("check", "save")
    dc = rng.choice([None, rng.randint(-2, 5)]) if checked else None
    target = (Target.dc(dc) if dc is not None else Target(rng.randint(5, 20))) if checked else None
    manual = rng.random() < 0.25
    return cmd.RequestRoll(
        kind,
        rng.choice(EXPRESSIONS[:1] if checked else EXPRESSIONS),
        advantage=amounts(rng) if checked else (),
        disadvantage=amounts(rng) if checked else (),
        eased=amounts(rng),
        hindered=amounts(rng),
        median=checked and rng.random() < 0.2,
        exploding=rng.random() < 0.8 and not manual,
        target=target,
        against="gas" if kind == "save" else None,
        action_id=rng.choice([None, f"act-{who}", "shared"]),
        rerolls=rng.choice([0, 0, 1, 2]),
        reroll_scope=rng.choice(list(RerollScope)),
        auto_reroll=rng.random() < 0.3,
        salt=rng.choice(["", "pinch"]),
        faces=tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 5))) if manual else None,
    )


def decider(state: SessionState, roll: Roll, rng: random.Random) -> str:
    """Return who rerolls or accepts: mostly whoever may, sometimes someone who may not."""
    request = roll.request
    if rng.random() < 0.2:
        return rng.choice(["gm", *PLAYERS])
    side = waiting_side(state, roll)
    if side is None:
        return request.roller
    return side_roller(state, request, side) or "gm"


def play(service: SessionService, sid: str, rng: random.Random) -> None:
    state = service.load(sid)
    who = rng.choice(PLAYERS)
    rolls = list(state.rolls.values())
    pick = rng.random()
    if pick < 0.35:
        service.execute(sid, who, a_roll(rng, who))
    elif pick < 0.45:
        service.execute(sid, "gm", a_roll(rng, "gm"))  # the GM's own, or for an NPC, blind
    elif pick < 0.55:
        waiting = [r for r in rolls if r.status == AWAITING]
        if waiting:
            roll = rng.choice(waiting)
            # An opposed check's side has a die or two in its round; a roll may have more.
            count = 2 if roll.request.opponent is not None else len(roll.dice) + 2
            dice = tuple(rng.sample(range(count), rng.randint(1, 2)))
            faces = tuple(rng.randint(1, 4) for _ in dice) if rng.random() < 0.3 else None
            if faces and roll.request.opponent is not None and rng.random() < 0.5:
                faces += (rng.randint(1, 4), rng.randint(1, 4))  # a fresh round, if it ties
            service.execute(sid, decider(state, roll, rng), cmd.Reroll(roll.roll_id, dice, faces))
    elif pick < 0.6:
        waiting = [r for r in rolls if r.status == AWAITING]
        if waiting:
            roll = rng.choice(waiting)
            faces = (rng.randint(1, 4), rng.randint(1, 4)) if rng.random() < 0.2 else None
            service.execute(sid, decider(state, roll, rng), cmd.Accept(roll.roll_id, faces))
    elif pick < 0.68:
        other = rng.choice(["orc", *PLAYERS])
        actor = rng.choice(["gm", who])
        sides = (CheckSide(who, "1d4"), CheckSide(other, "1d4", advantage=amounts(rng)))
        manual = rng.random() < 0.25
        opposed = cmd.RequestOpposed(
            *sides,
            action_id=rng.choice([None, f"act-{who}", "shared"]),
            rerolls=rng.choice([0, 0, 1, 2]),
            reroll_scope=rng.choice(list(RerollScope)),
            opponent_rerolls=rng.choice([0, 1, 2]),
            mode=RollMode.BLIND if rng.random() < 0.2 else RollMode.PUBLIC,
            faces=tuple(rng.randint(1, 4) for _ in range(rng.choice([2, 4]))) if manual else None,
        )
        service.execute(sid, actor, opposed)
    elif pick < 0.72:
        blind = cmd.RequestRoll(
            RollKind.EFFECT, "1d20", mode=RollMode.BLIND, on_behalf_of=rng.choice(PLAYERS)
        )
        service.execute(sid, "gm", blind)
    elif pick < 0.76 and rolls:
        service.execute(sid, "gm", cmd.RevealRoll(rng.choice(rolls).roll_id))
    elif pick < 0.79:
        service.reveal_seed(sid, "gm")
    elif pick < 0.86 and rolls:
        service.execute(sid, rng.choice(PLAYERS), cmd.OpenDispute(rng.choice(rolls).roll_id, "odd"))
    elif pick < 0.92 and rolls:
        outcome = rng.choice(list(cmd.Ruling))
        service.execute(sid, "gm", cmd.ResolveDispute(rng.choice(rolls).roll_id, outcome))
    elif rolls:
        old = rng.choice(rolls).request
        again = cmd.RequestRoll(
            RollKind(old.kind),
            old.side.expression,
            target=None
            if old.target is None
            else Target(old.target, old.dc_modifier, old.dc_label),
            against=old.against,
            on_behalf_of=old.on_behalf_of,
            replaces=old.roll_id,
        )
        service.execute(sid, old.roller, again)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_any_table_played_honestly_verifies_under_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    store = InMemoryEventStore()
    service = SessionService(store, InMemorySeedVault(), clock=Clock())
    sid = service.start("Random table", "gm").session_id
    for name in PLAYERS:
        service.execute(sid, name, cmd.JoinSession(name, client_seed=rng.choice(["", name])))
    if rng.random() < 0.3:
        service.execute(sid, "gm", cmd.JoinSession("cy", as_gm=True))
    for _ in range(rng.randint(5, 40)):
        try:
            play(service, sid, rng)
        except DiceledgerError:
            pass  # refused: nothing appended
    ended = rng.random() < 0.7
    if ended:
        service.end(sid, "gm", rng.choice([0, 3600, 86400]))
        for _ in range(rng.randint(0, 4)):
            try:
                play(service, sid, rng)  # only disputes and rulings get through, in the window
            except DiceledgerError:
                pass
    records = list(store.read_stream(sid))
    report = verify_records(records, from_record)
    assert report.ok, (report.first_failure, [r.event_type for r in records])
    cut = rng.randint(1, len(records))
    partial = verify_records(records[:cut], from_record)
    rule_failures = [f for f in partial.failures if "breaks the rules" in f.reason]
    assert not rule_failures, rule_failures

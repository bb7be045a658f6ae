"""Resolve a roll in the order of R14 over the spec's compiled plan, keeping every die.

``start`` draws the base dice left to right, chooses the counted dice and draws the chain
of every counted die, left to right, each to its end; ``reroll`` replaces dice one after
another (R11), each time choosing the counted dice again and drawing the chains of dice
that count for the first time; ``accept`` closes the roll. Draw order is exactly that of
docs/verification.md ("Draw order"). Any source serves: seeded, typed in or replayed, they
all append to the roll's ``Tape``. domain/verification/reference.py resolves rolls die by
die as the rules read, and the tests hold this engine equal to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from diceledger.domain.dice.ladder import step_down
from diceledger.domain.dice.plan import RollPlan
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.dice.rollstate import Die, Reason, RollState
from diceledger.domain.dice.sources import DiceSource, Tape
from diceledger.domain.errors import ExplosionChainError, RerollError

__all__ = [
    "MAX_CHAIN",
    "Die",
    "LowestBelowAverage",
    "Reason",
    "RerollPolicy",
    "RollState",
    "accept",
    "reroll",
    "roll",
    "start",
    "term_slots",
]

MAX_CHAIN = 100


def term_slots(spec: RollSpec) -> tuple[tuple[int, ...], ...]:
    """Return the slots of each dice term; the check term has one per pool die."""
    return spec.layout


def start(spec: RollSpec, source: DiceSource, rerolls: int = 0) -> RollState:
    """Draw the dice of a roll left to right, choose the counted dice, explode them."""
    plan = spec.plan
    tape = Tape()
    source.take(plan.sides, tape)
    faces, sides, live, pool = tape.faces, plan.sides, plan.base_slots, plan.pool
    counted = plan.before_pool if pool is None else _counted(plan, faces[pool.start : pool.stop])
    chains: list[tuple[int, ...] | None] = [()] * len(live)  # every base die counts ...
    hits = [slot for slot in plan.exploding if faces[slot] == sides[slot]]
    if pool is not None:  # ... but the check pool's others
        chains[pool.start : pool.stop] = [None] * len(pool)
        chosen = counted[len(plan.before_pool)]
        chains[chosen] = ()
        if plan.explodes[chosen] and faces[chosen] == sides[chosen]:
            hits = sorted((*hits, chosen))
    # Die i fills slot i, so each term's dice are one slice of the faces (the pool's none).
    values = [sum(faces[span]) for span in plan.spans]
    if pool is not None:
        values[plan.terms[chosen]] = faces[chosen]
    if hits:
        _explode(plan, tape, live, chains, hits, source)
        for slot in hits:  # a chain's dice were drawn one after another: one slice
            chain = chains[slot] or ()
            values[plan.terms[slot]] += sum(faces[chain[0] : chain[-1] + 1])
    return RollState.made(spec, tape, live, chains, (), counted, values, rerolls)


def reroll(state: RollState, dice: Sequence[int], source: DiceSource) -> RollState:
    """Replace the given live base dice one after another (R11), each time re-choosing."""
    if state.accepted:
        raise RerollError("the roll is already resolved")
    if len(dice) > state.rerolls_left:
        raise RerollError(f"{len(dice)} rerolls asked, {state.rerolls_left} left")
    if len(set(dice)) != len(dice):
        raise RerollError("a die can be named once per reroll; reroll its new die next time")
    records = state.dice
    for index in dice:
        _check_rerollable(state, records, index)
    plan = state.spec.plan
    tape = state.tape.copy()
    faces, sides, explodes = tape.faces, plan.sides, plan.explodes
    live, chains, replaced = list(state.live), list(state.chains), list(state.replaced)
    counted = state.counted_slots
    for index in dice:
        at = records[index].slot
        replaced.append((len(faces), index))
        live[at] = len(faces)
        chains.append(None)
        source.take_one(sides[at], tape)
        counted = _counted(plan, [faces[live[slot]] for slot in plan.pool or ()])
        newly = [slot for slot in counted if chains[live[slot]] is None]  # counting at last
        for slot in newly:
            chains[live[slot]] = ()
        hits = [slot for slot in newly if explodes[slot] and faces[live[slot]] == sides[slot]]
        _explode(plan, tape, live, chains, hits, source)
    values = [0] * len(plan.spans)
    for slot in counted:
        die = live[slot]
        values[plan.terms[slot]] += faces[die] + sum(faces[i] for i in chains[die] or ())
    left = state.rerolls_left - len(dice)
    return RollState.made(state.spec, tape, tuple(live), chains, replaced, counted, values, left)


def _counted(plan: RollPlan, pool: list[int]) -> tuple[int, ...]:
    """Return the counted slots: every slot but a check pool's, of which one die counts.

    ``pool`` holds the faces of the pool's live dice. Its counted die shows the face of
    rank ``counted_rank`` in descending order; among equal faces the lowest slot counts
    (R7, R8).
    """
    if plan.pool is None:
        return plan.before_pool
    chosen = plan.pool.start + pool.index(sorted(pool, reverse=True)[plan.counted_rank])
    return (*plan.before_pool, chosen, *plan.after_pool)


def _explode(
    plan: RollPlan,
    tape: Tape,
    live: Sequence[int],
    chains: list[tuple[int, ...] | None],
    hits: Sequence[int],
    source: DiceSource,
) -> None:
    """Draw the chain of the live die of each slot in ``hits``, in order, each to its end.

    A chain's first die is the exploding die's size, each later one a size down, and it
    goes on while the last die shows its highest face (R12). ``chains``, which holds an
    entry for every die drawn before, gets each chain, and None for each of their dice.
    """
    faces, sides, take_one = tape.faces, plan.sides, source.take_one
    for slot in hits:
        die, first = live[slot], len(faces)
        drawn, size = 0, sides[slot]
        face = size
        while face == size:
            if drawn == MAX_CHAIN:
                raise ExplosionChainError(
                    f"die {die} exploded more than {MAX_CHAIN} times; the dice source is broken"
                )
            if drawn:
                size = step_down(size)
            face = take_one(size, tape)
            drawn += 1
        chains[die] = tuple(range(first, first + drawn))
    chains += [None] * (len(faces) - len(chains))


def _check_rerollable(state: RollState, records: tuple[Die, ...], index: int) -> None:
    if not 0 <= index < len(records):
        raise RerollError(f"the roll has no die {index}")
    die = records[index]
    if die.reason is Reason.EXPLOSION:
        raise RerollError(f"die {index} is an explosion of die {die.parent}; reroll that die")
    if state.live[die.slot] != index:
        raise RerollError(
            f"die {index} was already rerolled; its new die is {state.live[die.slot]}"
        )


def accept(state: RollState) -> RollState:
    """Close the roll; any allowance left is given up."""
    return state.closed()


class RerollPolicy(Protocol):
    """Decides rerolls for scripted use: the dice to reroll next, or none to accept."""

    def choose(self, state: RollState) -> Sequence[int]: ...


class LowestBelowAverage:
    """The default policy of R11: reroll the lowest base die while it is below average."""

    def choose(self, state: RollState) -> Sequence[int]:
        """Return the lowest live base die if its face is below its die's average."""
        lowest = min((state.dice[i] for i in state.live), key=lambda d: (d.face, d.index))
        return (lowest.index,) if 2 * lowest.face < lowest.sides + 1 else ()


def roll(
    spec: RollSpec, source: DiceSource, *, rerolls: int = 0, policy: RerollPolicy | None = None
) -> RollState:
    """Resolve a roll in one go, letting a policy spend the reroll allowance."""
    state = start(spec, source, rerolls)
    while state.rerolls_left:
        chosen = (policy or LowestBelowAverage()).choose(state)
        if not chosen:
            break
        state = reroll(state, chosen, source)
    return accept(state)

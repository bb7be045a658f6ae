"""Resolve a roll die by die in the order of R14, keeping every die and why it was rolled.

A roll is a ``RollState``: every die drawn so far, which die currently fills each slot
(a base die of the expression or of the check pool), and the explosion chain of each die
that has counted. ``start`` draws the dice and their explosions; ``reroll`` replaces dice
(R11) and chooses the counted dice again; ``accept`` closes the roll. The same spec, the
same draws and the same choices always give the same state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from diceledger.domain.dice.ladder import step_down
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.dice.rollstate import Die, Reason, RollState, counted_slots
from diceledger.domain.dice.seeded_roll import MAX_CHAIN, start_seeded
from diceledger.domain.dice.sources import DiceSource, SeededSource
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
    "start_reference",
    "term_slots",
]


def term_slots(spec: RollSpec) -> tuple[tuple[int, ...], ...]:
    """Return the slots of each dice term; the check term has one per pool die."""
    return spec.layout


class _Roller:
    """The mutable working copy of a RollState while dice are being drawn."""

    def __init__(self, state: RollState, source: DiceSource) -> None:
        self.spec = state.spec
        self.dice = list(state.dice)
        self.live = list(state.live)
        self.chains = list(state.chains)
        self.source = source

    def add(
        self,
        term: int,
        slot: int,
        sides: int,
        reason: Reason,
        step: int = 0,
        parent: int | None = None,
    ) -> Die:
        draw = self.source.draw(sides)
        die = Die(len(self.dice), term, slot, sides, draw.face, reason, draw, step, parent)
        self.dice.append(die)
        self.chains.append(None)
        return die

    def explode_counted(self) -> None:
        """Roll the chain of every counted die that has not counted before (R12, R13)."""
        terms = self.spec.expression.terms
        for slot in counted_slots(self.spec, tuple(self.dice), tuple(self.live)):
            die = self.dice[self.live[slot]]
            if self.chains[die.index] is not None:
                continue
            explodes = self.spec.exploding and terms[die.term].exploding
            self.chains[die.index] = self._chain(die) if explodes else ()

    def _chain(self, die: Die) -> tuple[int, ...]:
        chain: list[int] = []
        last, size = die, die.sides
        while last.face == last.sides:
            if len(chain) == MAX_CHAIN:
                raise ExplosionChainError(
                    f"die {die.index} exploded more than {MAX_CHAIN} times; "
                    "the dice source is broken"
                )
            size = die.sides if not chain else step_down(size)
            last = self.add(
                die.term, die.slot, size, Reason.EXPLOSION, step=len(chain) + 1, parent=die.index
            )
            chain.append(last.index)
        return tuple(chain)

    def freeze(self, rerolls_left: int) -> RollState:
        return RollState(
            self.spec, tuple(self.dice), tuple(self.live), tuple(self.chains), rerolls_left
        )


def start(spec: RollSpec, source: DiceSource, rerolls: int = 0) -> RollState:
    """Draw the dice of a roll left to right, choose the counted dice, explode them.

    Seeded dice take the fast path (seeded_roll.py), which draws the same dice into flat
    lists; every other source goes die by die through ``start_reference``.
    """
    if isinstance(source, SeededSource):
        return start_seeded(spec, source, rerolls)
    return start_reference(spec, source, rerolls)


def start_reference(spec: RollSpec, source: DiceSource, rerolls: int = 0) -> RollState:
    """Draw the dice of a roll die by die, as R14 reads: the readable engine."""
    roller = _Roller(RollState(spec, (), (), ()), source)
    terms = spec.expression.terms
    for term, slots in enumerate(term_slots(spec)):
        for slot in slots:
            roller.add(term, slot, terms[term].sides, Reason.INITIAL)
    roller.live = list(range(len(roller.dice)))
    roller.explode_counted()
    return roller.freeze(rerolls)


def reroll(state: RollState, dice: Sequence[int], source: DiceSource) -> RollState:
    """Replace the given live base dice one after another (R11), each time re-choosing."""
    if state.accepted:
        raise RerollError("the roll is already resolved")
    if len(dice) > state.rerolls_left:
        raise RerollError(f"{len(dice)} rerolls asked, {state.rerolls_left} left")
    if len(set(dice)) != len(dice):
        raise RerollError("a die can be named once per reroll; reroll its new die next time")
    for index in dice:
        _check_rerollable(state, index)
    roller = _Roller(state, source)
    for index in dice:
        old = roller.dice[index]
        new = roller.add(old.term, old.slot, old.sides, Reason.REROLL, parent=index)
        roller.live[old.slot] = new.index
        roller.explode_counted()
    return roller.freeze(state.rerolls_left - len(dice))


def _check_rerollable(state: RollState, index: int) -> None:
    if not 0 <= index < len(state.dice):
        raise RerollError(f"the roll has no die {index}")
    die = state.dice[index]
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

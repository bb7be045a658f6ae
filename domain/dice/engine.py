"""Resolve a roll die by die in the order of R14, keeping every die and why it was rolled.

A roll is a ``RollState``: every die drawn so far, which die currently fills each slot
(a base die of the expression or of the check pool), and the explosion chain of each die
that has counted. ``start`` draws the dice and their explosions; ``reroll`` replaces dice
(R11) and chooses the counted dice again; ``accept`` closes the roll. The same spec, the
same draws and the same choices always give the same state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from diceledger.domain.dice.ast import BinaryOp, Node
from diceledger.domain.dice.ladder import step_down
from diceledger.domain.dice.notation import constant_value, evaluate
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.dice.sources import DiceSource, Draw
from diceledger.domain.errors import ExplosionChainError, RerollError

MAX_CHAIN = 100


class Reason(StrEnum):
    """Why a die was rolled."""

    INITIAL = "initial"
    EXPLOSION = "explosion"
    REROLL = "reroll"


@dataclass(frozen=True, slots=True)
class Die:
    """One die drawn for a roll.

    ``index`` is its place in draw order; ``slot`` the base die it is or belongs to;
    ``parent`` the die it explodes from (explosions) or replaces (rerolls); ``step`` its
    place in an explosion chain, 1 for the first added die.
    """

    index: int
    term: int
    slot: int
    sides: int
    face: int
    reason: Reason
    draw: Draw
    step: int = 0
    parent: int | None = None


@dataclass(frozen=True, slots=True)
class RollState:
    """A roll in progress or resolved: every die, the live die of each slot, the chains."""

    spec: RollSpec
    dice: tuple[Die, ...]
    live: tuple[int, ...]
    chains: tuple[tuple[int, ...] | None, ...]
    rerolls_left: int = 0
    accepted: bool = False

    @property
    def awaiting_decision(self) -> bool:
        """Tell whether the roller may still reroll or accept (R11)."""
        return not self.accepted and self.rerolls_left > 0

    @property
    def counted_slots(self) -> tuple[int, ...]:
        """Return the slots whose dice count, in slot order (R7, R8, R13)."""
        return _counted_slots(self.spec, self.dice, self.live)

    @property
    def term_values(self) -> dict[int, int]:
        """Return each dice term's value: its counted dice with their chains."""
        values = {term.term: 0 for term in self.spec.expression.terms}
        for slot in self.counted_slots:
            die = self.dice[self.live[slot]]
            chain = self.chains[die.index] or ()
            values[die.term] += die.face + sum(self.dice[i].face for i in chain)
        return values

    @property
    def total(self) -> int:
        """Return the total: expression value, Eased/Hindered, then divisions (R9, R14)."""
        return _value_with_ease(self.spec.expression.root, self.term_values, self.spec.ease)


def _value_with_ease(node: Node, values: dict[int, int], ease: int) -> int:
    # Ease enters before a trailing division (R14): floor((x + ease) / d).
    if isinstance(node, BinaryOp) and node.op == "/":
        return _value_with_ease(node.left, values, ease) // constant_value(node.right)
    return evaluate(node, values) + ease


def term_slots(spec: RollSpec) -> tuple[tuple[int, ...], ...]:
    """Return the slots of each dice term; the check term has one per pool die."""
    return spec.layout


def _counted_slots(spec: RollSpec, dice: tuple[Die, ...], live: tuple[int, ...]) -> tuple[int, ...]:
    check_term = spec.check_term
    counted: list[int] = []
    for term, slots in enumerate(term_slots(spec)):
        if spec.check is None or term != check_term:
            counted.extend(slots)
            continue
        faces = [dice[live[slot]].face for slot in slots]
        face = sorted(faces, reverse=True)[spec.check.counted_rank]
        counted.append(slots[faces.index(face)])  # equal faces: the lowest index counts
    return tuple(counted)


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
        for slot in _counted_slots(self.spec, tuple(self.dice), tuple(self.live)):
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
    """Draw the dice of a roll left to right, choose the counted dice, explode them."""
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
    return RollState(state.spec, state.dice, state.live, state.chains, state.rerolls_left, True)


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
    policy = policy or LowestBelowAverage()
    state = start(spec, source, rerolls)
    while state.rerolls_left:
        chosen = policy.choose(state)
        if not chosen:
            break
        state = reroll(state, chosen, source)
    return accept(state)

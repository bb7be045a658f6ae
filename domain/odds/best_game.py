"""The game a roller plays with a reroll allowance, as states and exact chances (R11).

A state holds, for each group of base dice (a dice term, or the check pool), what a
choice can depend on:

- a term whose dice all count: its dice's values (face plus chain), sorted, since any die
  of equal value is as good to reroll as another;
- the check pool: one entry per slot, in slot order, because equal faces are told apart
  by slot (R7, R8) and only the counted die has a chain. An entry is the die's value, or
  PENDING for a die showing its maximum whose chain was never rolled: a chain is rolled
  the first time its die counts and stays with it until the die is rerolled (R13).

Every value is capped at its group's ``cap``: the least value with which that die alone
meets the target, the other dice showing 1. The expression rises with every die (checked
before a game is built), so a counting die at its cap means success whatever the rest
show, and any higher value would change nothing. A pool die capped while not counted
keeps its place among the faces below the cap, which is all the choice of the counted
die reads there.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from diceledger.domain.dice.ast import Node
from diceledger.domain.dice.evaluate import evaluate
from diceledger.domain.dice.ladder import step_down
from diceledger.domain.odds.rerolls import DiceGroup

PENDING = 0  # a pool die showing its maximum whose chain is not rolled yet
GroupState = tuple[int, ...]
State = tuple[GroupState, ...]
Outcomes = tuple[tuple[Fraction, int], ...]  # (chance, value), values distinct
Branches = list[tuple[Fraction, State]]


def capped_chain(sides: int, room: int) -> Outcomes:
    """Return the exact chances of min(chain, room) after a ``sides`` die shows its maximum.

    The chain steps down the ladder (R12) and may go on for ever, but once it reaches
    ``room`` more makes no difference, so it is followed only that far.
    """
    chances: dict[int, Fraction] = {}
    prefix, reach, size = 0, Fraction(1), sides
    while prefix < room:
        share = reach / size
        for face in range(1, size):
            value = min(prefix + face, room)
            chances[value] = chances.get(value, Fraction(0)) + share
        prefix, reach, size = prefix + size, share, step_down(size)
    if reach:
        chances[room] = chances.get(room, Fraction(0)) + reach
    return tuple((p, v) for v, p in sorted(chances.items()))


@dataclass(frozen=True, slots=True)
class Game:
    """A roll against a target: its groups of base dice, their caps and fresh-die chances."""

    root: Node
    target: int
    groups: tuple[DiceGroup, ...]
    caps: tuple[int, ...]
    news: tuple[Outcomes, ...]  # per group, a new die's entry
    tops: tuple[Outcomes, ...]  # per group, a counted die's value when it shows its maximum

    @classmethod
    def of(
        cls, root: Node, target: int, groups: tuple[DiceGroup, ...], caps: tuple[int, ...]
    ) -> Game:
        """Build a game, working out once the chances every reroll draws on."""
        pairs = tuple(zip(groups, caps, strict=True))
        tops = tuple(_counted_max(group, cap) for group, cap in pairs)
        news = tuple(_fresh(group, cap, top) for (group, cap), top in zip(pairs, tops, strict=True))
        return cls(root, target, groups, caps, news, tops)

    def fresh(self, g: int) -> Outcomes:
        """Return a new die's entry: a counting die's value, or a pool die's face."""
        return self.news[g]

    def succeeds(self, state: State) -> bool:
        """Tell whether accepting the dice of ``state`` meets the target (R3)."""
        values = {g.term: self._term_value(g, s) for g, s in zip(self.groups, state, strict=True)}
        return evaluate(self.root, values) >= self.target

    def _term_value(self, group: DiceGroup, entries: GroupState) -> int:
        if group.rank is None:
            return sum(entries)
        return entries[self.counted_slot(group, entries)]

    def counted_slot(self, group: DiceGroup, entries: GroupState) -> int:
        """Return the pool's counted slot: the face of its rank; equal faces, lowest slot."""
        faces = [self._face(group, entry) for entry in entries]
        return faces.index(sorted(faces, reverse=True)[group.rank or 0])

    @staticmethod
    def _face(group: DiceGroup, entry: int) -> int:
        return group.sides if entry == PENDING else min(entry, group.sides)

    def settled(self, g: int, entries: GroupState) -> list[tuple[Fraction, GroupState]]:
        """Return a pool's entries once its newly counted die has rolled its chain."""
        group = self.groups[g]
        slot = 0 if group.rank is None else self.counted_slot(group, entries)
        if group.rank is None or entries[slot] != PENDING:
            return [(Fraction(1), entries)]
        return [(p, entries[:slot] + (value,) + entries[slot + 1 :]) for p, value in self.tops[g]]

    def rerolls(self, state: State) -> Iterator[Branches]:
        """Yield, for each die worth telling apart, the states rerolling it may lead to."""
        for g, group in enumerate(self.groups):
            entries, fresh = state[g], self.fresh(g)
            if group.rank is None:
                for value in sorted(set(entries)):
                    yield self._reroll_counting(state, g, entries.index(value), fresh)
            else:
                for slot in range(len(entries)):
                    yield self._reroll_pool(state, g, slot, fresh)

    def _reroll_counting(self, state: State, g: int, at: int, fresh: Outcomes) -> Branches:
        rest = list(state[g][:at] + state[g][at + 1 :])
        branches = []
        for p, value in fresh:
            entries = rest.copy()
            insort(entries, value)
            branches.append((p, _with_group(state, g, tuple(entries))))
        return branches

    def _reroll_pool(self, state: State, g: int, slot: int, fresh: Outcomes) -> Branches:
        entries = state[g]
        branches: Branches = []
        for p, value in fresh:
            new = entries[:slot] + (value,) + entries[slot + 1 :]
            branches.extend((p * q, _with_group(state, g, e)) for q, e in self.settled(g, new))
        return branches


def _fresh(group: DiceGroup, cap: int, top: Outcomes) -> Outcomes:
    chances: dict[int, Fraction] = {}
    share = Fraction(1, group.sides)
    for face in range(1, group.sides + 1):
        for chance, value in _entries(group, cap, face, top):
            chances[value] = chances.get(value, Fraction(0)) + share * chance
    return tuple((p, v) for v, p in sorted(chances.items()))


def _entries(group: DiceGroup, cap: int, face: int, top: Outcomes) -> Outcomes:
    """Return a new die's entry for one face: a pool die explodes only once it counts."""
    if face >= cap:
        return ((Fraction(1), cap),)
    if face < group.sides or not group.exploding:
        return ((Fraction(1), face),)
    return ((Fraction(1), PENDING),) if group.rank is not None else top


def _counted_max(group: DiceGroup, cap: int) -> Outcomes:
    """Return the value of a counting die that shows its maximum, with its chain."""
    if not group.exploding or cap <= group.sides:
        return ((Fraction(1), min(group.sides, cap)),)
    return tuple((p, group.sides + v) for p, v in capped_chain(group.sides, cap - group.sides))


def _with_group(state: State, g: int, entries: GroupState) -> State:
    return state[:g] + (entries,) + state[g + 1 :]

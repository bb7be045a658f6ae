"""A roll's record: every die drawn, the live die of each slot, the explosion chains.

The engine keeps a roll flat: the faces of its dice in draw order and where each came
from (see ``Tape``), which die fills each slot, each die's chain, which die each reroll
replaced, and the slots that count. The ``Die`` records, which the events and the faces
read, are built from these the first time ``dice`` is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from diceledger.domain.dice.ladder import step_down
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.dice.sources import GIVEN, WORDS_PER_BLOCK, Draw, Provenance, Tape


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


Chains = tuple[tuple[int, ...] | None, ...]


class _Records:
    """``RollState.dice``: the record of every die in draw order, built once when read.

    A non-data descriptor: the records it builds go into the state's own dictionary,
    which every later read finds first. Not a dataclass field (it has no annotation), so
    the records take no part in comparing, hashing or ``replace``.
    """

    def __get__(self, state: RollState | None, owner: type[RollState]) -> tuple[Die, ...]:
        if state is None:
            raise AttributeError("dice")  # a state's, not the class's
        dice = _records(state)
        state.__dict__["dice"] = dice
        return dice


@dataclass(frozen=True)
class RollState:
    """A roll in progress or resolved, as the engine drew it.

    ``tape`` holds every die's face and where it came from, in draw order; the first
    ``len(spec.plan.sides)`` are the base dice, die i filling slot i. ``live[slot]`` is
    the die filling each slot now; ``chains[i]`` the dice of die i's explosion chain
    (empty when it counted without exploding, None while it never counted), drawn one
    after another; ``replaced`` pairs each reroll's die with the die it replaced;
    ``counted_slots`` the slots whose dice count, in slot order (R7, R8, R13); ``values``
    each dice term's value, its counted dice with their chains.
    """

    spec: RollSpec
    tape: Tape
    live: tuple[int, ...]
    chains: Chains
    replaced: tuple[tuple[int, int], ...]
    counted_slots: tuple[int, ...]
    values: tuple[int, ...]
    rerolls_left: int = 0
    accepted: bool = False
    dice = _Records()  # every die's record, in draw order

    @classmethod
    def made(
        cls,
        spec: RollSpec,
        tape: Tape,
        live: tuple[int, ...],
        chains: list[tuple[int, ...] | None],
        replaced: list[tuple[int, int]] | tuple[()],
        counted_slots: tuple[int, ...],
        values: list[int],
        rerolls_left: int,
    ) -> RollState:
        """Return the state of the dice the engine drew onto ``tape``.

        The same object as ``RollState(...)`` with the lists made tuples, built without
        the frozen dataclass's field-by-field ``object.__setattr__``, which is a good part
        of a roll's time. The state keeps the tape itself.
        """
        state = cls.__new__(cls)
        state.__dict__.update(
            spec=spec,
            tape=tape,
            live=live,
            chains=tuple(chains),
            replaced=tuple(replaced),
            counted_slots=counted_slots,
            values=tuple(values),
            rerolls_left=rerolls_left,
            accepted=False,
        )
        return state

    def closed(self) -> RollState:
        """Return the same roll, accepted (``engine.accept``); its records come along."""
        state = RollState.__new__(RollState)
        state.__dict__.update(self.__dict__, accepted=True)
        return state

    @property
    def awaiting_decision(self) -> bool:
        """Tell whether the roller may still reroll or accept (R11)."""
        return not self.accepted and self.rerolls_left > 0

    @property
    def term_values(self) -> dict[int, int]:
        """Return each dice term's value: its counted dice with their chains."""
        return dict(enumerate(self.values))

    @property
    def total(self) -> int:
        """Return the total: expression value, Eased/Hindered, then divisions (R9, R14)."""
        return self.spec.plan.total(self.values)


def _records(state: RollState) -> tuple[Die, ...]:
    """Build the records from the flat draws: each die's reason, slot, size and parent.

    The base dice come first, die i in slot i; every later die is a reroll (``replaced``
    names the die it replaced) or the next die of a chain, whose first die is named by
    the ``chains`` entry of the die it explodes from.
    """
    plan, chains, tape = state.spec.plan, state.chains, state.tape
    faces, places, given, replaced = tape.faces, tape.places, tape.given, dict(state.replaced)
    per_block, seeded = WORDS_PER_BLOCK, Provenance.SEEDED
    dice = [
        Die(
            slot,
            term,
            slot,
            sides,
            face,
            Reason.INITIAL,
            given[slot]
            if place == GIVEN
            else Draw(sides, face, seeded, place // per_block, place % per_block),
        )
        # zip stops at the base dice, the shortest
        for slot, (term, sides, face, place) in enumerate(
            zip(plan.terms, plan.sides, faces, places, strict=False)
        )
    ]
    starts = {chain[0]: die for die, chain in enumerate(chains) if chain}  # chain: its die
    owner = size = step = 0
    for index in range(len(dice), len(faces)):
        parent = replaced.get(index)
        if parent is not None:
            old = dice[parent]
            term, slot, sides, reason, step = old.term, old.slot, old.sides, Reason.REROLL, 0
        else:  # the next die of the chain under way, or the first of the next one
            if index in starts:
                owner, step, size = starts[index], 0, dice[starts[index]].sides
            step += 1
            parent = owner
            size = size if step == 1 else step_down(size)
            term, slot, sides, reason = dice[owner].term, dice[owner].slot, size, Reason.EXPLOSION
        face, place = faces[index], places[index]
        draw = (
            given[index]
            if place == GIVEN
            else Draw(sides, face, seeded, place // per_block, place % per_block)
        )
        dice.append(Die(index, term, slot, sides, face, reason, draw, step, parent))
    return tuple(dice)

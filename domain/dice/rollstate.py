"""A roll's record: every die drawn, the live die of each slot, the explosion chains.

A ``RollState`` made by the readable engine holds its ``Die`` records. One made by the
seeded fast path holds only the faces and stream places it drew, with its counted slots
and term values already worked out; its ``Die`` and ``Draw`` records are built the first
time someone reads ``dice``. Both kinds compare, hash and read alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from diceledger.domain.dice.ladder import step_down
from diceledger.domain.dice.plan import RollPlan, value_with_ease
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.dice.sources import WORDS_PER_BLOCK, Draw, Provenance


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


@dataclass(frozen=True)
class RollState:
    """A roll in progress or resolved: every die, the live die of each slot, the chains.

    A state of the seeded fast path (``drawn``) starts without ``dice`` in its instance
    dictionary: ``_DiceOnDemand`` builds them from its flat draws when first read. Its
    counted slots and term values, known from the draw, sit beside them as ``_counted`` and
    ``_values``; they are no fields, so ``dataclasses.replace`` gives a plain state.
    """

    spec: RollSpec
    dice: tuple[Die, ...]
    live: tuple[int, ...]
    chains: Chains
    rerolls_left: int = 0
    accepted: bool = False

    @classmethod
    def drawn(
        cls,
        spec: RollSpec,
        faces: list[int],
        places: list[int],
        chains: Chains,
        counted: tuple[int, ...],
        values: list[int],
        rerolls_left: int = 0,
    ) -> RollState:
        """Return a state of the seeded fast path: dice as flat draws, totals known.

        ``faces[i]`` and ``places[i]`` (8 * block + word) belong to die ``i``; the first
        ``len(spec.plan.sides)`` dice are the base dice, slot ``i`` being die ``i``, and
        every other die is a step of one of their chains. The lists are never changed.
        """
        state = cls.__new__(cls)
        state.__dict__.update(
            spec=spec,
            live=spec.plan.base_slots,
            chains=chains,
            rerolls_left=rerolls_left,
            accepted=False,
            _faces=faces,
            _places=places,
            _counted=counted,
            _values=values,
        )
        return state

    def closed(self) -> RollState:
        """Return the same roll, accepted (``engine.accept``)."""
        state = RollState.__new__(RollState)
        state.__dict__.update(self.__dict__, accepted=True)
        return state

    @property
    def awaiting_decision(self) -> bool:
        """Tell whether the roller may still reroll or accept (R11)."""
        return not self.accepted and self.rerolls_left > 0

    @property
    def counted_slots(self) -> tuple[int, ...]:
        """Return the slots whose dice count, in slot order (R7, R8, R13)."""
        counted: tuple[int, ...] | None = self.__dict__.get("_counted")
        if counted is None:
            return counted_slots(self.spec, self.dice, self.live)
        return counted

    @property
    def term_values(self) -> dict[int, int]:
        """Return each dice term's value: its counted dice with their chains."""
        known: list[int] | None = self.__dict__.get("_values")
        if known is not None:
            return dict(enumerate(known))
        values = {term.term: 0 for term in self.spec.expression.terms}
        for slot in self.counted_slots:
            die = self.dice[self.live[slot]]
            chain = self.chains[die.index] or ()
            values[die.term] += die.face + sum(self.dice[i].face for i in chain)
        return values

    @property
    def total(self) -> int:
        """Return the total: expression value, Eased/Hindered, then divisions (R9, R14)."""
        known: list[int] | None = self.__dict__.get("_values")
        if known is not None:
            return self.spec.plan.total(known)
        return value_with_ease(self.spec.expression.root, self.term_values, self.spec.ease)


class _DiceOnDemand:
    """``RollState.dice`` of a fast-path state: its records, built when first read.

    A non-data descriptor, so a state made with its dice (every state but ``drawn``'s)
    reads them from its instance dictionary and never comes here; one that was ``drawn``
    gets them built once and kept there. Set on the class after ``@dataclass`` has made
    ``dice`` a field without a default.
    """

    def __get__(self, state: RollState | None, owner: type[RollState]) -> tuple[Die, ...]:
        if state is None:
            raise AttributeError("dice")  # no class-level value: a dataclass sees no default
        found = state.__dict__
        dice = _dice_of(state.spec.plan, found["_faces"], found["_places"], state.chains)
        state.__dict__["dice"] = dice
        return dice


setattr(RollState, "dice", _DiceOnDemand())  # noqa: B010 (mypy would read it as a default)


def counted_slots(spec: RollSpec, dice: tuple[Die, ...], live: tuple[int, ...]) -> tuple[int, ...]:
    """Return the slots whose live dice count: all but a check pool's uncounted dice."""
    check_term = spec.check_term
    counted: list[int] = []
    for term, slots in enumerate(spec.layout):
        if spec.check is None or term != check_term:
            counted.extend(slots)
            continue
        faces = [dice[live[slot]].face for slot in slots]
        face = sorted(faces, reverse=True)[spec.check.counted_rank]
        counted.append(slots[faces.index(face)])  # equal faces: the lowest index counts
    return tuple(counted)


def _dice_of(
    plan: RollPlan, faces: list[int], places: list[int], chains: Chains
) -> tuple[Die, ...]:
    """Build the Die records of a fast-path roll from its flat draws and chains.

    The base dice come first, slot by slot; then the chains, which were drawn slot by
    slot, each to its end.
    """
    base: list[Die] = []
    added: list[Die] = []
    for slot, sides in enumerate(plan.sides):
        term = plan.terms[slot]
        base.append(_die(slot, term, slot, sides, faces, places, Reason.INITIAL, 0, None))
        size = sides
        for step, index in enumerate(chains[slot] or (), start=1):
            size = size if step == 1 else step_down(size)
            added.append(_die(index, term, slot, size, faces, places, Reason.EXPLOSION, step, slot))
    return (*base, *added)


def _die(
    index: int,
    term: int,
    slot: int,
    sides: int,
    faces: list[int],
    places: list[int],
    reason: Reason,
    step: int,
    parent: int | None,
) -> Die:
    face = faces[index]
    block, word = divmod(places[index], WORDS_PER_BLOCK)
    draw = Draw(sides, face, Provenance.SEEDED, block, word)
    return Die(index, term, slot, sides, face, reason, draw, step, parent)

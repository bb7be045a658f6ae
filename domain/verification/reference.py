"""The readable dice engine: verify's own reference, written as the rules read.

It shares with domain/dice/engine.py the records, the spec, the size ladder, the HMAC
message and the tree walk of ``value_with_ease``, none of its compiled plan: a roll is a
list of ``Die`` records drawn one by one, the counted dice are chosen by walking
the spec's terms (R7, R8), every die that counts for the first time has its chain drawn
at once (R12, R13), and the total walks the expression tree (R9, R14). Seeded dice come from
``ReadableSeed``, which computes the HMAC blocks of docs/verification.md ("The dice of a
seed") as they are written there. verify derives the dice of every revealed seed and
resolves every recorded roll again with it; tests/domain/dice/test_seeded_fast_path.py
holds the production engine equal to it.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from diceledger.domain.dice.ladder import step_down
from diceledger.domain.dice.plan import value_with_ease
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.dice.rollstate import Chains, Die, Reason
from diceledger.domain.dice.sources import (
    WORDS_PER_BLOCK,
    Draw,
    Provenance,
    ReplaySource,
    draw_message,
    face_from_word,
)
from diceledger.domain.errors import ExplosionChainError, RerollError
from diceledger.domain.session.rolls import DiceEvent, all_used, segments

MAX_CHAIN = 100


class DrawSource(Protocol):
    """Anything that gives the next die of ``sides`` sides as its record."""

    def draw(self, sides: int) -> Draw: ...


class ReadableSeed:
    """The seeded dice of one nonce, block by block, as docs/verification.md defines them.

    block k = HMAC-SHA256(seed, message || k as 4 bytes big-endian), eight big-endian
    words each; a die takes the next word, skipping one that would bias it.
    """

    def __init__(
        self, seed: bytes, session_id: str, nonce: int, client_seed: str = "", salt: str = ""
    ) -> None:
        self._seed = seed
        self._message = draw_message(session_id, nonce, client_seed, salt)
        self._block: tuple[int, bytes] | None = None
        self._place = 0  # 8 * block + word of the next word

    def _word(self, block: int, word: int) -> int:
        if self._block is None or self._block[0] != block:
            message = self._message + block.to_bytes(4, "big")
            self._block = (block, hmac.digest(self._seed, message, "sha256"))
        return int.from_bytes(self._block[1][4 * word : 4 * word + 4], "big")

    def draw(self, sides: int) -> Draw:
        """Return the next die of ``sides`` sides with its block and word."""
        while True:
            block, word = divmod(self._place, WORDS_PER_BLOCK)
            self._place += 1
            face = face_from_word(self._word(block, word), sides)
            if face is not None:
                return Draw(sides, face, Provenance.SEEDED, block, word)


@dataclass(frozen=True)
class ReadableRoll:
    """A roll as the reference resolves it: every die's record, live dice and chains.

    ``live[slot]`` is the die filling each slot; ``chains[i]`` the dice of die i's chain
    (empty when it counted without exploding, None while it never counted).
    """

    spec: RollSpec
    dice: tuple[Die, ...]
    live: tuple[int, ...]
    chains: Chains
    rerolls_left: int = 0
    accepted: bool = False

    @property
    def counted_slots(self) -> tuple[int, ...]:
        """Return the slots whose dice count: all but a check pool's uncounted dice."""
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
        return value_with_ease(self.spec.expression.root, self.term_values, self.spec.ease)


def _counted_slots(spec: RollSpec, dice: Sequence[Die], live: Sequence[int]) -> tuple[int, ...]:
    counted: list[int] = []
    for term, slots in enumerate(spec.layout):
        if spec.check is None or term != spec.check_term:
            counted.extend(slots)
            continue
        faces = [dice[live[slot]].face for slot in slots]
        face = sorted(faces, reverse=True)[spec.check.counted_rank]
        counted.append(slots[faces.index(face)])  # equal faces: the lowest index counts
    return tuple(counted)


class _Roller:
    """The working copy of a roll while its dice are drawn."""

    def __init__(self, state: ReadableRoll, source: DrawSource) -> None:
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
        """Draw the chain of every counted die that has not counted before (R12, R13)."""
        terms = self.spec.expression.terms
        for slot in _counted_slots(self.spec, self.dice, self.live):
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

    def freeze(self, rerolls_left: int) -> ReadableRoll:
        return ReadableRoll(
            self.spec, tuple(self.dice), tuple(self.live), tuple(self.chains), rerolls_left
        )


def start(spec: RollSpec, source: DrawSource, rerolls: int = 0) -> ReadableRoll:
    """Draw the base dice left to right, then the chains of the counted dice."""
    roller = _Roller(ReadableRoll(spec, (), (), ()), source)
    terms = spec.expression.terms
    for term, slots in enumerate(spec.layout):
        for slot in slots:
            roller.add(term, slot, terms[term].sides, Reason.INITIAL)
    roller.live = list(range(len(roller.dice)))
    roller.explode_counted()
    return roller.freeze(rerolls)


def reroll(state: ReadableRoll, dice: Sequence[int], source: DrawSource) -> ReadableRoll:
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


def _check_rerollable(state: ReadableRoll, index: int) -> None:
    if not 0 <= index < len(state.dice):
        raise RerollError(f"the roll has no die {index}")
    die = state.dice[index]
    if die.reason is Reason.EXPLOSION:
        raise RerollError(f"die {index} is an explosion of die {die.parent}; reroll that die")
    if state.live[die.slot] != index:
        raise RerollError(
            f"die {index} was already rerolled; its new die is {state.live[die.slot]}"
        )


def accept(state: ReadableRoll) -> ReadableRoll:
    """Close the roll; any allowance left is given up."""
    return replace(state, accepted=True)


def replay(spec: RollSpec, events: Sequence[DiceEvent]) -> ReadableRoll:
    """Resolve one side's recorded dice again: the initial dice, then each reroll in turn.

    Each part's dice must be exactly the ones the rules draw, in size and in number.
    """
    (_, first), *rerolls = segments(events)
    source = ReplaySource(first)
    state = start(spec, source, len(rerolls))
    all_used(source, "the initial dice")
    for number, (event, draws) in enumerate(rerolls, start=1):
        assert event is not None
        source = ReplaySource(draws)
        state = reroll(state, [event.replaced], source)
        all_used(source, f"reroll {number}")
    return state

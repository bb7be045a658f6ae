"""The engine gives exactly the dice, records and totals of verify's readable reference.

``engine.start`` draws into flat lists over the spec's compiled plan and builds ``Die``
records only when they are read; ``reference.start`` (domain/verification/reference.py)
draws die by die, seeded dice from its own ``ReadableSeed``. For any spec, seed and nonce,
and for typed-in faces, both must agree on every face, block and word, every record, the
chains, the counted dice and the total, and so must everything done to the state
afterwards (rerolls, accepting, reading it again).
"""

from __future__ import annotations

import dataclasses
import hmac
import re
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.engine import (
    LowestBelowAverage,
    RollState,
    accept,
    reroll,
    roll,
    start,
)
from diceledger.domain.dice.ladder import SIZES
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import Modifier, RollSpec, build_spec
from diceledger.domain.dice.sources import (
    DiceSource,
    Draw,
    ManualSource,
    OneAtATime,
    Provenance,
    SeededSource,
    SeedKey,
    Tape,
    draw_message,
)
from diceledger.domain.errors import DiceNotationError, ExplosionChainError, RerollError, RollError
from diceledger.domain.verification import reference
from diceledger.domain.verification.reference import DrawSource, ReadableRoll, ReadableSeed

U32 = 2**32

dice_term = st.builds(
    lambda count, sides, plain: f"{count}d{sides}{'n' if plain else ''}",
    st.integers(1, 5),
    st.sampled_from(SIZES),
    st.booleans(),
)
expressions = st.recursive(
    dice_term | st.integers(0, 9).map(str),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from("+-*"), inner).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
        st.tuples(inner, st.integers(1, 4)).map(lambda t: f"({t[0]})/{t[1]}"),
        inner.map(lambda text: f"-({text})"),
    ),
    max_leaves=6,
)
amounts = st.lists(st.integers(0, 3).map(Modifier), max_size=2).map(tuple)


@st.composite
def specs(draw: st.DrawFn) -> RollSpec:
    """Any roll or check the notation allows, with its options."""
    text = draw(expressions)
    is_check = draw(st.booleans())
    if is_check:  # a check needs a single die, the check die, somewhere
        text = f"1d{draw(st.sampled_from(SIZES))}{draw(st.sampled_from(['', 'n']))}+{text}"
    try:
        return build_spec(
            parse(text),
            check=is_check,
            advantage=draw(amounts) if is_check else (),
            disadvantage=draw(amounts) if is_check else (),
            median=draw(st.booleans()) if is_check else False,
            eased=draw(amounts),
            hindered=draw(amounts),
            exploding=draw(st.booleans()),
        )
    except (DiceNotationError, RollError):
        return build_spec(parse("1d6"), check=False)


seeds = st.binary(min_size=0, max_size=80)  # past 64 bytes HMAC hashes the key first
texts = st.text(max_size=12)


def assert_same(fast: RollState, readable: ReadableRoll) -> None:
    """Compare every part a caller can read, the derived ones first (they skip ``dice``)."""
    assert fast.counted_slots == readable.counted_slots
    assert fast.term_values == readable.term_values
    assert fast.total == readable.total
    assert [(d.draw.provenance, d.draw.block, d.draw.word) for d in fast.dice] == [
        (d.draw.provenance, d.draw.block, d.draw.word) for d in readable.dice
    ]
    assert fast.dice == readable.dice
    assert (fast.live, fast.chains) == (readable.live, readable.chains)
    assert (fast.rerolls_left, fast.accepted) == (readable.rerolls_left, readable.accepted)


@settings(max_examples=300, deadline=None)
@given(
    spec=specs(),
    seed=seeds,
    session=texts,
    nonce=st.integers(0, 2**63),
    client_seed=texts,
    salt=texts,
    rerolls=st.integers(0, 2),
)
def test_the_fast_path_draws_what_the_readable_engine_draws(
    spec: RollSpec,
    seed: bytes,
    session: str,
    nonce: int,
    client_seed: str,
    salt: str,
    rerolls: int,
) -> None:
    fast = start(spec, SeedKey(seed).source(session, nonce, client_seed, salt), rerolls)
    readable = reference.start(spec, ReadableSeed(seed, session, nonce, client_seed, salt), rerolls)
    assert_same(fast, readable)
    assert_same(accept(fast), reference.accept(readable))


@settings(max_examples=150, deadline=None)
@given(spec=specs(), seed=seeds, nonce=st.integers(0, 10_000), data=st.data())
def test_a_fast_state_rerolls_and_is_replaced_like_a_readable_one(
    spec: RollSpec, seed: bytes, nonce: int, data: st.DataObject
) -> None:
    fast = start(spec, SeededSource(seed, "s", nonce), rerolls=2)
    readable = reference.start(spec, ReadableSeed(seed, "s", nonce), rerolls=2)
    if readable.live:
        named = data.draw(st.sampled_from(readable.live))
        again = reroll(fast, [named], SeededSource(seed, "s", nonce + 1))
        following = ReadableSeed(seed, "s", nonce + 1)
        assert_same(again, reference.reroll(readable, [named], following))
        policy = LowestBelowAverage()
        by_policy = roll(spec, SeededSource(seed, "s", nonce), rerolls=2, policy=policy)
        assert_same(by_policy, rolled_by_policy(spec, ReadableSeed(seed, "s", nonce), 2))
    assert_same(
        dataclasses.replace(fast, rerolls_left=1), dataclasses.replace(readable, rerolls_left=1)
    )


def rolled_by_policy(spec: RollSpec, source: ReadableSeed, rerolls: int) -> ReadableRoll:
    """The reference's roll with the default policy of R11, written out on its own."""
    state = reference.start(spec, source, rerolls)
    while state.rerolls_left:
        lowest = min((state.dice[i] for i in state.live), key=lambda d: (d.face, d.index))
        if 2 * lowest.face >= lowest.sides + 1:
            break
        state = reference.reroll(state, [lowest.index], source)
    return reference.accept(state)


class Typist(OneAtATime):
    """Types in a face for each die the reference asks for, and keeps what it typed."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.typed: list[int] = []

    def draw(self, sides: int) -> Draw:
        face = self.data.draw(st.sampled_from([sides, 1]) | st.integers(1, sides))
        self.typed.append(face)
        return Draw(sides, face, Provenance.MANUAL)


Step = tuple[DiceSource, DrawSource, Typist | None]


def step_dice(data: st.DataObject, seed: bytes, nonce: int) -> Step:
    """Return a command's dice for each engine: seeded from one seed, or typed in."""
    if data.draw(st.booleans()):
        return SeededSource(seed, "s", nonce), ReadableSeed(seed, "s", nonce), None
    typist = Typist(data)
    return ManualSource(typist.typed), typist, typist


def typed_for(step: Step) -> DiceSource:
    """Return the engine's source of a step, holding what the typist typed for it."""
    engine_source, _, typist = step
    return engine_source if typist is None else ManualSource(typist.typed)


@settings(max_examples=300, deadline=None)
@given(spec=specs(), seed=seeds, rerolls=st.integers(0, 3), data=st.data())
def test_typed_in_and_seeded_dice_and_their_rerolls_give_what_the_reference_gives(
    spec: RollSpec, seed: bytes, rerolls: int, data: st.DataObject
) -> None:
    first = step_dice(data, seed, 1)
    try:
        readable = reference.start(spec, first[1], rerolls)
    except ExplosionChainError as refused:
        with pytest.raises(ExplosionChainError, match=re.escape(str(refused))):
            start(spec, typed_for(first), rerolls)
        return
    fast = start(spec, typed_for(first), rerolls)
    assert_same(fast, readable)
    for nonce in range(2, 2 + rerolls):
        named = data.draw(st.lists(st.integers(0, len(readable.dice)), min_size=1, max_size=2))
        dice = step_dice(data, seed, nonce)
        try:
            readable = reference.reroll(readable, named, dice[1])
        except (RerollError, ExplosionChainError) as refused:
            with pytest.raises(type(refused), match=re.escape(str(refused))):
                reroll(fast, named, typed_for(dice))
            return
        source = typed_for(dice)
        fast = reroll(fast, named, source)
        if isinstance(source, ManualSource):
            source.finish()  # every typed face was needed, no more
        assert_same(fast, readable)
    assert_same(accept(fast), reference.accept(readable))


class Crafted(SeededSource):
    """A seeded source whose blocks are chosen words, to reach skipped words at will."""

    words: tuple[int, ...] = ()

    def _words_of(self, block: int) -> tuple[int, ...]:
        start = block * 8 % len(self.words)
        return tuple((self.words * 9)[start : start + 8])


def crafted(words: tuple[int, ...]) -> Crafted:
    source = Crafted(b"k", "s", 1)
    source.words = words
    return source


word = st.one_of(st.integers(0, U32 - 1), st.integers(U32 - 40, U32 - 1))


@settings(max_examples=200, deadline=None)
@given(spec=specs(), words=st.lists(word, min_size=8, max_size=8).map(tuple))
def test_skipped_words_keep_their_place_on_the_fast_path_too(
    spec: RollSpec, words: tuple[int, ...]
) -> None:
    try:
        readable = reference.start(spec, crafted(words))
    except ExplosionChainError:
        with pytest.raises(ExplosionChainError):
            start(spec, crafted(words))
        return
    assert_same(start(spec, crafted(words)), readable)


def test_a_chain_without_end_is_refused_on_both_paths() -> None:
    spec = build_spec(parse("2d20"), check=False)
    top = (120 - 1,) * 8  # the highest face of every size: 120 is a multiple of each
    with pytest.raises(ExplosionChainError, match="die 0 exploded more than 100 times"):
        reference.start(spec, crafted(top))
    with pytest.raises(ExplosionChainError, match="die 0 exploded more than 100 times"):
        start(spec, crafted(top))


@settings(max_examples=200, deadline=None)
@given(
    seed=seeds,
    session=texts,
    nonce=st.integers(0, 2**63),
    sizes=st.lists(st.sampled_from([4, 6, 7, 20, 100, 2**31 + 1, U32 - 3]), max_size=30),
)
def test_taking_dice_in_bulk_equals_drawing_them_one_by_one(
    seed: bytes, session: str, nonce: int, sizes: list[int]
) -> None:
    tape = Tape()
    SeedKey(seed).source(session, nonce).take(sizes, tape)
    one_by_one = ReadableSeed(seed, session, nonce)
    draws = [one_by_one.draw(size) for size in sizes]
    assert tape.faces == [d.face for d in draws]
    assert [divmod(p, 8) for p in tape.places] == [(d.block, d.word) for d in draws]
    assert tape.given == {}


@settings(max_examples=200)
@given(seed=seeds, session=texts, nonce=st.integers(0, 2**63), block=st.integers(0, 300))
def test_the_keyed_seed_is_hmac_sha256(seed: bytes, session: str, nonce: int, block: int) -> None:
    message = draw_message(session, nonce, "c", "s")
    expected = hmac.digest(seed, message + block.to_bytes(4, "big"), "sha256")
    assert SeedKey(seed).words(message, block) == struct.unpack(">8I", expected)

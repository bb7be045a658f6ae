"""The seeded fast path gives exactly the dice, records and totals of the readable engine.

``engine.start`` with a ``SeededSource`` draws into flat lists (seeded_roll.py) and builds
``Die`` records only when they are read; ``engine.start_reference`` draws die by die with
``SeededSource.draw``. For any spec, seed and nonce both must agree on every face, block and
word, every record, the chains, the counted dice and the total, and so must everything
done to the state afterwards (rerolls, accepting, reading it again).
"""

from __future__ import annotations

import dataclasses
import hmac
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
    start_reference,
)
from diceledger.domain.dice.ladder import SIZES
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import Modifier, RollSpec, build_spec
from diceledger.domain.dice.sources import Draw, SeededSource, SeedKey, draw_message
from diceledger.domain.errors import DiceNotationError, ExplosionChainError, RollError

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


def assert_same(fast: RollState, reference: RollState) -> None:
    """Compare every part a caller can read, the derived ones first (they skip ``dice``)."""
    assert fast.counted_slots == reference.counted_slots
    assert fast.term_values == reference.term_values
    assert fast.total == reference.total
    assert fast.awaiting_decision == reference.awaiting_decision
    assert [(d.draw.block, d.draw.word) for d in fast.dice] == [
        (d.draw.block, d.draw.word) for d in reference.dice
    ]
    assert fast.dice == reference.dice
    assert fast == reference
    assert hash(fast) == hash(reference)
    assert repr(fast) == repr(reference)


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
    reference = start_reference(
        spec, SeededSource(seed, session, nonce, client_seed, salt), rerolls
    )
    assert_same(fast, reference)
    assert_same(accept(fast), accept(reference))


@settings(max_examples=150, deadline=None)
@given(spec=specs(), seed=seeds, nonce=st.integers(0, 10_000), data=st.data())
def test_a_fast_state_rerolls_and_is_replaced_like_a_readable_one(
    spec: RollSpec, seed: bytes, nonce: int, data: st.DataObject
) -> None:
    fast = start(spec, SeededSource(seed, "s", nonce), rerolls=2)
    reference = start_reference(spec, SeededSource(seed, "s", nonce), rerolls=2)
    if reference.live:
        named = data.draw(st.sampled_from(reference.live))
        again = reroll(fast, [named], SeededSource(seed, "s", nonce + 1))
        assert_same(again, reroll(reference, [named], SeededSource(seed, "s", nonce + 1)))
        policy = LowestBelowAverage()
        by_policy = roll(spec, SeededSource(seed, "s", nonce), rerolls=2, policy=policy)
        assert_same(by_policy, roll(spec, ReadableOnly(seed, "s", nonce), rerolls=2))
    assert_same(dataclasses.replace(fast, rerolls_left=1), reference_with(reference, 1))


def reference_with(state: RollState, rerolls_left: int) -> RollState:
    return dataclasses.replace(state, rerolls_left=rerolls_left)


class ReadableOnly:
    """A seeded source the engine cannot recognise, so it takes the readable path."""

    def __init__(self, seed: bytes, session: str, nonce: int) -> None:
        self._source = SeededSource(seed, session, nonce)

    def draw(self, sides: int) -> Draw:
        return self._source.draw(sides)


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
        reference = start_reference(spec, crafted(words))
    except ExplosionChainError:
        with pytest.raises(ExplosionChainError):
            start(spec, crafted(words))
        return
    assert_same(start(spec, crafted(words)), reference)


def test_a_chain_without_end_is_refused_on_both_paths() -> None:
    spec = build_spec(parse("2d20"), check=False)
    top = (120 - 1,) * 8  # the highest face of every size: 120 is a multiple of each
    with pytest.raises(ExplosionChainError, match="die 0 exploded more than 100 times"):
        start_reference(spec, crafted(top))
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
    faces: list[int] = []
    places: list[int] = []
    SeedKey(seed).source(session, nonce).take(sizes, faces, places)
    one_by_one = SeededSource(seed, session, nonce)
    draws = [one_by_one.draw(size) for size in sizes]
    assert faces == [d.face for d in draws]
    assert [divmod(p, 8) for p in places] == [(d.block, d.word) for d in draws]


@settings(max_examples=200)
@given(seed=seeds, session=texts, nonce=st.integers(0, 2**63), block=st.integers(0, 300))
def test_the_keyed_seed_is_hmac_sha256(seed: bytes, session: str, nonce: int, block: int) -> None:
    message = draw_message(session, nonce, "c", "s")
    expected = hmac.digest(seed, message + block.to_bytes(4, "big"), "sha256")
    assert SeedKey(seed).words(message, block) == struct.unpack(">8I", expected)

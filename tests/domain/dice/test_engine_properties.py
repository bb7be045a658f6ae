"""Properties of the engine and the seeded source that must hold for any dice."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.breakdown import breakdown, die_views
from diceledger.domain.dice.engine import Reason, RollState, roll, start
from diceledger.domain.dice.ladder import SIZES, chain_size
from diceledger.domain.dice.request import Modifier
from diceledger.domain.dice.sources import SeededSource
from diceledger.domain.stats.chisquare import uniform_p_value
from tests.domain.dice.helpers import FacesThenOnes, check, plain

faces_20 = st.integers(min_value=1, max_value=20)


@given(score=st.integers(-6, 6), faces=st.lists(faces_20, min_size=7, max_size=7))
def test_r7_counted_check_die_is_the_max_for_advantage_and_min_for_disadvantage(
    score: int, faces: list[int]
) -> None:
    spec = check("1d20", adv=max(score, 0), dis=max(-score, 0))
    pool = faces[: abs(score) + 1]
    state = start(spec, FacesThenOnes(pool))
    counted = [v.die for v in die_views(state) if v.counted and v.die.reason is Reason.INITIAL]
    expected = max(pool) if score >= 0 else min(pool)
    assert [d.face for d in counted] == [expected]
    assert counted[0].index == pool.index(expected)


@given(faces=st.lists(faces_20, min_size=3, max_size=3))
def test_r8_median_of_three_is_the_middle_order_statistic(faces: list[int]) -> None:
    state = start(check("1d20", median=True), FacesThenOnes(faces))
    counted = [v.die.face for v in die_views(state) if v.counted and v.die.reason is Reason.INITIAL]
    assert counted == [sorted(faces)[1]]


@given(score=st.integers(-4, 4), faces=st.lists(faces_20, min_size=7, max_size=7))
def test_r8_median_with_a_score_counts_the_second_from_the_favoured_end(
    score: int, faces: list[int]
) -> None:
    spec = check("1d20", adv=max(score, 0), dis=max(-score, 0), median=True)
    pool = faces[: 3 + abs(score)]
    state = start(spec, FacesThenOnes(pool))
    counted = [v.die.face for v in die_views(state) if v.counted and v.die.reason is Reason.INITIAL]
    ordered = sorted(pool, reverse=score >= 0)
    assert counted == [ordered[1]]


term = st.tuples(st.integers(1, 4), st.sampled_from(SIZES), st.booleans())


@settings(max_examples=200)
@given(
    terms=st.lists(term, min_size=1, max_size=4),
    numbers=st.lists(st.integers(-20, 20), max_size=3),
    signs=st.lists(st.sampled_from("+-"), min_size=7, max_size=7),
    divisor=st.sampled_from([None, 2, 3]),
    eased=st.integers(0, 5),
    hindered=st.integers(0, 5),
    nonce=st.integers(0, 10_000),
)
def test_total_equals_the_sum_of_its_breakdown(
    terms: list[tuple[int, int, bool]],
    numbers: list[int],
    signs: list[str],
    divisor: int | None,
    eased: int,
    hindered: int,
    nonce: int,
) -> None:
    atoms = [f"{n}d{s}{'n' if not explode else ''}" for n, s, explode in terms]
    atoms += [f"({n})" if n < 0 else str(n) for n in numbers]
    text = atoms[0] + "".join(f"{signs[i]}{a}" for i, a in enumerate(atoms[1:]))
    if divisor:
        text = f"({text})/{divisor}"
    spec = plain(text, eased=(Modifier(eased),), hindered=(Modifier(hindered),))
    state = roll(spec, SeededSource(b"s" * 32, "sess", nonce))
    parts = breakdown(state)
    assert parts.recompute() == state.total
    if "-" not in text:
        counted_faces = sum(v.die.face for v in die_views(state) if v.counted)
        assert sum(p.value for p in parts.parts if p.kind == "dice") == counted_faces


@given(sides=st.sampled_from(SIZES), maxima=st.integers(0, 12))
def test_r12_chains_follow_the_ladder_and_never_go_below_d4(sides: int, maxima: int) -> None:
    source = FacesThenOnes([99] * (maxima + 1))  # clipped to each die's maximum
    state = roll(plain(f"1d{sides}"), source)
    chain = [d for d in state.dice if d.reason is Reason.EXPLOSION]
    assert len(chain) == maxima + 1
    assert [d.sides for d in chain] == [chain_size(sides, d.step) for d in chain]
    assert all(d.sides >= 4 for d in chain)


@given(
    seed=st.binary(min_size=32, max_size=32),
    nonce=st.integers(0, 2**40),
    sides=st.sampled_from(SIZES),
    salt=st.text(max_size=8),
)
def test_seeded_source_faces_stay_on_the_die(
    seed: bytes, nonce: int, sides: int, salt: str
) -> None:
    source = SeededSource(seed, "session", nonce, "client", salt)
    draws = [source.draw(sides) for _ in range(30)]
    assert all(1 <= d.face <= sides for d in draws)
    positions = [(d.block, d.word) for d in draws]
    assert positions == sorted(set(positions))


def test_seeded_source_is_uniform_over_200000_d20_draws() -> None:
    source = SeededSource(bytes(range(32)), "uniformity", 1)
    counts = Counter(source.draw(20).face for _ in range(200_000))
    assert sorted(counts) == list(range(1, 21))
    assert uniform_p_value([counts[f] for f in range(1, 21)]) > 0.001


def test_same_spec_same_draws_same_result() -> None:
    spec = check("1d20+1d4+2", adv=1)

    def again() -> RollState:
        return roll(spec, SeededSource(b"k" * 32, "s", 7, "c", "salt"), rerolls=2)

    assert again() == again()
    assert again() != roll(spec, SeededSource(b"k" * 32, "s", 8, "c", "salt"), rerolls=2)

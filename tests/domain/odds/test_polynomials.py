"""The packed polynomial product equals schoolbook convolution, on both of its paths."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.odds.polynomials import polymul


def schoolbook(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def bound(a: list[int], b: list[int]) -> int:
    return max(a).bit_length() + max(b).bit_length() + min(len(a), len(b)).bit_length()


coefficients = st.lists(st.integers(0, 2**64), min_size=1, max_size=40)


@settings(max_examples=100, deadline=None)
@given(coefficients, coefficients)
def test_small_products_match_schoolbook(a: list[int], b: list[int]) -> None:
    assert polymul(a, b, bound(a, b)) == schoolbook(a, b)


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**32), st.integers(100, 150), st.integers(100, 150))
def test_large_products_take_the_decimal_path_and_still_match(
    seed: int, size_a: int, size_b: int
) -> None:
    rng = random.Random(seed)
    a = [rng.getrandbits(3000) for _ in range(size_a)]
    b = [rng.getrandbits(rng.choice([8, 3000])) for _ in range(size_b)]
    # (len(a) + len(b)) * bits is past the switch to decimal multiplication here.
    assert (len(a) + len(b)) * bound(a, b) > 400_000
    assert polymul(a, b, bound(a, b)) == schoolbook(a, b)

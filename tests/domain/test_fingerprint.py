"""A checkpoint's words: distinct, easy to read out, and different for different roots."""

from __future__ import annotations

import pytest

from diceledger.domain.fingerprint import WORDS, checkpoint_label, fingerprint_words


def test_the_word_list_holds_256_distinct_words_of_plain_letters() -> None:
    assert len(WORDS) == len(set(WORDS)) == 256
    assert all(word.isascii() and word.isalpha() and word.islower() for word in WORDS)


@pytest.mark.parametrize("byte", range(5))
def test_roots_that_differ_in_any_of_their_first_five_bytes_are_told_apart(byte: int) -> None:
    root = bytes(32)
    other = root[:byte] + b"\x01" + root[byte + 1 :]
    assert fingerprint_words(root) != fingerprint_words(other)
    assert checkpoint_label(7, root) == "#7 \u00b7 acorn acorn acorn acorn acorn"


def test_the_size_is_part_of_the_label() -> None:
    root = bytes(range(32))
    assert checkpoint_label(3, root) != checkpoint_label(4, root)
    assert checkpoint_label(3, root) == f"#3 \u00b7 {fingerprint_words(root)}"

"""The seeded source derives faces exactly as documented, so anyone can re-derive them."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from diceledger.domain.dice.sources import (
    MESSAGE_TAG,
    Draw,
    Provenance,
    ReplaySource,
    SeededSource,
    commitment,
    draw_message,
    face_from_word,
)
from diceledger.domain.errors import ManualFacesError


def test_message_is_the_tag_then_length_prefixed_fields() -> None:
    message = draw_message("s1", 5, "alice", "")
    assert message == (
        MESSAGE_TAG
        + b"\x00\x00\x00\x02s1"
        + b"\x00\x00\x00\x08"
        + (5).to_bytes(8, "big")
        + b"\x00\x00\x00\x05alice"
        + b"\x00\x00\x00\x00"
    )


def test_first_face_is_the_first_word_of_block_zero_mod_sides_plus_one() -> None:
    seed = bytes(32)
    digest = hmac.new(seed, draw_message("s1", 1) + bytes(4), hashlib.sha256).digest()
    first_word = int.from_bytes(digest[:4], "big")
    draw = SeededSource(seed, "s1", 1).draw(6)
    assert draw == Draw(6, first_word % 6 + 1, Provenance.SEEDED, 0, 0)


def test_words_that_would_bias_the_die_are_skipped() -> None:
    limit = 2**32 - (2**32 % 6)
    assert face_from_word(limit - 1, 6) == (limit - 1) % 6 + 1
    assert face_from_word(limit, 6) is None
    assert face_from_word(2**32 - 1, 4) == 4  # 4 divides 2**32: nothing is skipped


def test_ninth_draw_comes_from_block_one() -> None:
    source = SeededSource(b"x" * 32, "s", 3)
    draws = [source.draw(4) for _ in range(9)]
    assert [(d.block, d.word) for d in draws][-2:] == [(0, 7), (1, 0)]


def test_commitment_is_sha256_of_the_seed() -> None:
    assert commitment(b"abc") == hashlib.sha256(b"abc").hexdigest()


def test_replay_source_hands_back_recorded_draws_and_refuses_a_wrong_size() -> None:
    recorded = [Draw(6, 3, Provenance.MANUAL), Draw(8, 8, Provenance.MANUAL)]
    source = ReplaySource(recorded)
    assert source.draw(6) == recorded[0]
    with pytest.raises(ManualFacesError, match="recorded as a d8, the rules ask for a d6"):
        source.draw(6)

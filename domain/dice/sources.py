"""Where faces come from: the seeded HMAC source, typed-in faces, and replays.

The seeded source turns a secret epoch seed into dice that anyone holding the revealed
seed can re-derive. For a roll it computes HMAC-SHA256(seed, message || block) for blocks
0, 1, 2 ..., where ``message`` is fixed for the roll (see ``draw_message``). Each 32-byte
block gives eight big-endian 32-bit words. A die of S sides takes the next word w,
skips it when w >= 2**32 - (2**32 mod S) so every face is exactly equally likely, and
shows w mod S + 1.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from diceledger.domain.errors import ManualFacesError

ALGORITHM = "hmac-sha256/u32-reject/v1"
MESSAGE_TAG = b"diceledger/draw/v1"
WORDS_PER_BLOCK = 8
_U32 = 1 << 32
_EIGHT_WORDS = struct.Struct(">8I")  # a 32-byte block as eight big-endian words


class Provenance(StrEnum):
    """Whether a face can be re-derived from a seed or was typed in by hand."""

    SEEDED = "seeded"
    MANUAL = "manual"


@dataclass(frozen=True, slots=True)
class Draw:
    """One face from a source, with where in the seeded stream it came from."""

    sides: int
    face: int
    provenance: Provenance
    block: int | None = None
    word: int | None = None


class DiceSource(Protocol):
    """Anything that can give the next face of a die of ``sides`` sides."""

    def draw(self, sides: int) -> Draw: ...


def _field(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


def draw_message(session_id: str, nonce: int, client_seed: str = "", salt: str = "") -> bytes:
    """Return the fixed part of the HMAC message of one roll (the block number follows).

    Layout: the tag, then four length-prefixed fields (4-byte big-endian length, then the
    bytes): session id (UTF-8), nonce (8-byte big-endian), client seed and salt (UTF-8).
    """
    return MESSAGE_TAG + b"".join(
        _field(part)
        for part in (
            session_id.encode(),
            nonce.to_bytes(8, "big"),
            client_seed.encode(),
            salt.encode(),
        )
    )


def face_from_word(word: int, sides: int) -> int | None:
    """Map a 32-bit word to a face of a die of ``sides``, or None if it must be skipped."""
    if word >= _U32 - (_U32 % sides):
        return None
    return word % sides + 1


class SeededSource:
    """Dice derived from an epoch seed by HMAC-SHA256; deterministic and verifiable."""

    def __init__(
        self, seed: bytes, session_id: str, nonce: int, client_seed: str = "", salt: str = ""
    ) -> None:
        self._mac = hmac.new(seed, draw_message(session_id, nonce, client_seed, salt), "sha256")
        self._block = -1
        self._words: tuple[int, ...] = ()
        self._next_word = WORDS_PER_BLOCK

    def _words_of(self, block: int) -> tuple[int, ...]:
        mac = self._mac.copy()
        mac.update(block.to_bytes(4, "big"))
        return _EIGHT_WORDS.unpack(mac.digest())

    def draw(self, sides: int) -> Draw:
        """Return the next face for a die of ``sides``, skipping words that would bias it."""
        while True:
            if self._next_word == WORDS_PER_BLOCK:
                self._block += 1
                self._words = self._words_of(self._block)
                self._next_word = 0
            word_index = self._next_word
            self._next_word += 1
            face = face_from_word(self._words[word_index], sides)
            if face is not None:
                return Draw(sides, face, Provenance.SEEDED, self._block, word_index)


def commitment(seed: bytes) -> str:
    """Return the published commitment to an epoch seed: SHA-256 of it, in hex."""
    return hashlib.sha256(seed).hexdigest()


class ManualSource:
    """Faces typed in from physical dice, in draw order; each checked against its die."""

    def __init__(self, faces: Sequence[int]) -> None:
        self._faces = tuple(faces)
        self._used = 0

    def draw(self, sides: int) -> Draw:
        """Return the next typed-in face, refusing one that a die of ``sides`` cannot show."""
        number = self._used + 1
        if self._used >= len(self._faces):
            raise ManualFacesError(
                f"not enough faces: die {number} (a d{sides}) needs one more face"
            )
        face = self._faces[self._used]
        if not 1 <= face <= sides:
            raise ManualFacesError(f"face {face} for die {number} is not on a d{sides}")
        self._used += 1
        return Draw(sides, face, Provenance.MANUAL)

    def finish(self) -> None:
        """Refuse faces that were typed in but never needed."""
        extra = len(self._faces) - self._used
        if extra:
            raise ManualFacesError(f"too many faces: the roll used {self._used}, {extra} left over")


class ReplaySource:
    """Draws recorded earlier, handed back in order to resolve a roll again."""

    def __init__(self, draws: Sequence[Draw]) -> None:
        self._draws = tuple(draws)
        self._used = 0

    def draw(self, sides: int) -> Draw:
        """Return the next recorded draw; its size must be the one the rules ask for."""
        if self._used >= len(self._draws):
            raise ManualFacesError(f"the record ends before die {self._used + 1} (a d{sides})")
        recorded = self._draws[self._used]
        if recorded.sides != sides:
            raise ManualFacesError(
                f"die {self._used + 1} was recorded as a d{recorded.sides}, "
                f"the rules ask for a d{sides}"
            )
        self._used += 1
        return recorded

    @property
    def remaining(self) -> int:
        """Return how many recorded draws were not used."""
        return len(self._draws) - self._used

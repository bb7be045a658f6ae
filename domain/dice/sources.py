"""Where faces come from: the seeded HMAC source, typed-in faces, and replays.

Every source appends the dice the engine asks for to the roll's ``Tape``: a seeded die as
its face and its place in the stream, any other die as its whole ``Draw``. A source that
hands out whole draws (typed in, replayed, scripted) is a ``OneAtATime``.

The seeded source turns a secret epoch seed into dice that anyone holding the revealed
seed can re-derive. For a roll it computes HMAC-SHA256(seed, message || block) for blocks
0, 1, 2 ..., where ``message`` is fixed for the roll (see ``draw_message``). Each 32-byte
block gives eight big-endian 32-bit words. A die of S sides takes the next word w,
skips it when w >= 2**32 - (2**32 mod S) so every face is exactly equally likely, and
shows w mod S + 1.
"""

from __future__ import annotations

import hashlib
import struct
from abc import ABC, abstractmethod
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
_HMAC_BLOCK = 64  # SHA-256's block size, to which HMAC pads its key
_INNER_PAD = bytes(x ^ 0x36 for x in range(256))
_OUTER_PAD = bytes(x ^ 0x5C for x in range(256))


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


GIVEN = -1  # the place of a die that no seeded stream numbered


class Tape:
    """The dice of one roll, in draw order, as flat lists the sources append to.

    ``faces[i]`` is die i's face. ``places[i]`` is its place in the seeded stream,
    8 * block + word, or ``GIVEN`` for a die its source gave as a whole ``Draw`` (typed in,
    replayed), which ``given`` then holds by die. A seeded roll makes no record per die.
    Once a roll's state holds its tape, nothing appends to it: a reroll draws onto a copy.
    """

    __slots__ = ("faces", "places", "given")

    def __init__(self) -> None:
        self.faces: list[int] = []
        self.places: list[int] = []
        self.given: dict[int, Draw] = {}

    def copy(self) -> Tape:
        """Return a tape holding the same dice, to draw more after them."""
        tape = Tape()
        tape.faces += self.faces
        tape.places += self.places
        tape.given.update(self.given)
        return tape

    def add(self, draw: Draw) -> int:
        """Append a die given as a whole draw; return its face."""
        self.given[len(self.faces)] = draw
        self.faces.append(draw.face)
        self.places.append(GIVEN)
        return draw.face

    def _key(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, Draw], ...]]:
        return tuple(self.faces), tuple(self.places), tuple(self.given.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tape) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Tape(faces={self.faces}, places={self.places}, given={self.given})"


class DiceSource(Protocol):
    """Anything that can give the next faces of dice of the sizes the engine asks for.

    ``take`` and ``take_one`` append to the roll's tape (the engine's way); ``draw`` returns
    one die's record (the readable reference engine's way). They give the same dice.
    """

    def draw(self, sides: int) -> Draw: ...

    def take(self, sizes: Sequence[int], tape: Tape) -> None: ...

    def take_one(self, sides: int, tape: Tape) -> int: ...


class OneAtATime(ABC):
    """A source that hands out whole draws, one die at a time: typed in, replayed, scripted."""

    @abstractmethod
    def draw(self, sides: int) -> Draw:
        """Return the next die of ``sides`` sides."""

    def take(self, sizes: Sequence[int], tape: Tape) -> None:
        """Append a die of each size in turn to the tape."""
        for sides in sizes:
            tape.add(self.draw(sides))

    def take_one(self, sides: int, tape: Tape) -> int:
        """Append one die to the tape; return its face."""
        return tape.add(self.draw(sides))


_LENGTH = struct.Struct(">I").pack  # a field's length: 4 bytes, big-endian


def draw_message(session_id: str, nonce: int, client_seed: str = "", salt: str = "") -> bytes:
    """Return the fixed part of the HMAC message of one roll (the block number follows).

    Layout: the tag, then four length-prefixed fields (4-byte big-endian length, then the
    bytes): session id (UTF-8), nonce (8-byte big-endian), client seed and salt (UTF-8).
    """
    session, client, pepper = session_id.encode(), client_seed.encode(), salt.encode()
    return b"".join(
        (
            MESSAGE_TAG,
            _LENGTH(len(session)),
            session,
            _LENGTH(8),
            nonce.to_bytes(8, "big"),
            _LENGTH(len(client)),
            client,
            _LENGTH(len(pepper)),
            pepper,
        )
    )


def face_from_word(word: int, sides: int) -> int | None:
    """Map a 32-bit word to a face of a die of ``sides``, or None if it must be skipped."""
    if word >= _U32 - (_U32 % sides):
        return None
    return word % sides + 1


class SeedKey:
    """An epoch seed made ready to key HMAC-SHA256: its inner and outer states, built once.

    HMAC (RFC 2104) hashes the key padded to a 64-byte block and XORed with 0x36 before the
    message, and the key XORed with 0x5c before the inner digest. Hashing those two padded
    blocks is the same for every roll under the seed, so it is done here once and each block
    of every roll starts from copies of the two states. Equal to ``hmac.new(seed, ...)``.
    """

    __slots__ = ("_inner", "_outer")

    def __init__(self, seed: bytes) -> None:
        key = hashlib.sha256(seed).digest() if len(seed) > _HMAC_BLOCK else seed
        key = key.ljust(_HMAC_BLOCK, b"\0")
        self._inner = hashlib.sha256(key.translate(_INNER_PAD))
        self._outer = hashlib.sha256(key.translate(_OUTER_PAD))

    def words(self, message: bytes, block: int) -> tuple[int, ...]:
        """Return the eight words of HMAC-SHA256(seed, message || block as 4 bytes)."""
        inner = self._inner.copy()
        inner.update(message + block.to_bytes(4, "big"))
        outer = self._outer.copy()
        outer.update(inner.digest())
        return _EIGHT_WORDS.unpack(outer.digest())

    def source(
        self, session_id: str, nonce: int, client_seed: str = "", salt: str = ""
    ) -> SeededSource:
        """Return the seeded source of one nonce, keyed by this seed."""
        return SeededSource.keyed(self, draw_message(session_id, nonce, client_seed, salt))


class SeededSource:
    """Dice derived from an epoch seed by HMAC-SHA256; deterministic and verifiable.

    The words of the blocks drawn so far are kept in one list, so a die's place in the
    stream is a single number, 8 * block + word.
    """

    __slots__ = ("_key", "_message", "_words", "_next")

    def __init__(
        self, seed: bytes, session_id: str, nonce: int, client_seed: str = "", salt: str = ""
    ) -> None:
        self._key = SeedKey(seed)
        self._message = draw_message(session_id, nonce, client_seed, salt)
        self._words: list[int] = []  # every word of the blocks drawn so far
        self._next = 0  # the place of the next word: 8 * block + word

    @classmethod
    def keyed(cls, key: SeedKey, message: bytes) -> SeededSource:
        """Return the source of a roll's ``message`` under a seed already keyed."""
        source = cls.__new__(cls)  # one per roll: the fields as ``__init__`` sets them
        source._key, source._message, source._words, source._next = key, message, [], 0
        return source

    def _words_of(self, block: int) -> tuple[int, ...]:
        return self._key.words(self._message, block)

    def _word_at(self, place: int) -> int:
        words = self._words
        while place >= len(words):
            words.extend(self._words_of(len(words) // WORDS_PER_BLOCK))
        return words[place]

    def draw(self, sides: int) -> Draw:
        """Return the next face for a die of ``sides``, skipping words that would bias it."""
        while True:
            place = self._next
            self._next += 1
            face = face_from_word(self._word_at(place), sides)
            if face is not None:
                block, word = divmod(place, WORDS_PER_BLOCK)
                return Draw(sides, face, Provenance.SEEDED, block, word)

    def take(self, sizes: Sequence[int], tape: Tape) -> None:
        """Draw a die of each size in turn, appending its face and its place to the tape.

        The same dice as ``draw`` one by one. As 2**32 mod S < S, a word below 2**32 minus
        the largest size is never skipped, so when every word is (all but always) the
        faces come from consecutive words in one go.
        """
        start = self._next
        end = start + len(sizes)
        stream = self._words
        while len(stream) < end:  # the blocks these dice need, all at once
            stream.extend(self._words_of(len(stream) // WORDS_PER_BLOCK))
        words = stream[start:end]
        if words and max(words) < _U32 - max(sizes):
            # zip is not strict: both have len(sizes) items, and checking costs time here
            tape.faces.extend([word % sides + 1 for word, sides in zip(words, sizes, strict=False)])
            tape.places.extend(range(start, end))
            self._next = end
            return
        for sides in sizes:
            self.take_one(sides, tape)

    def take_one(self, sides: int, tape: Tape) -> int:
        """Draw one die, appending its face and place to the tape; return the face."""
        limit = _U32 - _U32 % sides
        place = self._next
        word = self._words[place] if place < len(self._words) else self._word_at(place)
        while word >= limit:
            place += 1
            word = self._word_at(place)
        self._next = place + 1
        face = word % sides + 1
        tape.faces.append(face)
        tape.places.append(place)
        return face


def commitment(seed: bytes) -> str:
    """Return the published commitment to an epoch seed: SHA-256 of it, in hex."""
    return hashlib.sha256(seed).hexdigest()


class ManualSource(OneAtATime):
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


class ReplaySource(OneAtATime):
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

"""docs/verification.md's derivation, written again from the page for the tests to predict with.

Nothing here calls the dice code: the message, the blocks, the words and the rejection rule
are built from the page's own words, so a test that compares these predictions with what
the session records checks the page against the code.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from dataclasses import dataclass

LADDER = (20, 12, 10, 8, 6, 4)  # the explosion ladder, large to small (R12)


def field(value: bytes) -> bytes:
    """Return a length-prefixed field: 4-byte big-endian length, then the bytes."""
    return len(value).to_bytes(4, "big") + value


def message(session: str, nonce: int, client_seed: str, salt: str) -> bytes:
    """Return the fixed part of a nonce's HMAC message."""
    parts = (session.encode(), nonce.to_bytes(8, "big"), client_seed.encode(), salt.encode())
    return b"diceledger/draw/v1" + b"".join(field(p) for p in parts)


@dataclass(frozen=True)
class Drawn:
    """A predicted die: its size, face and where its word was."""

    sides: int
    face: int
    block: int
    word: int


class Stream:
    """The words of one nonce, consumed die after die."""

    def __init__(self, seed: bytes, session: str, nonce: int, client_seed: str, salt: str):
        self.fixed = message(session, nonce, client_seed, salt)
        self.seed = seed
        self.words = self._words()

    def _words(self) -> Iterator[tuple[int, int, int]]:
        block = 0
        while True:
            digest = hmac.new(self.seed, self.fixed + block.to_bytes(4, "big"), "sha256").digest()
            for word in range(8):
                yield block, word, int.from_bytes(digest[4 * word : 4 * word + 4], "big")
            block += 1

    def draw(self, sides: int) -> Drawn:
        """Take the next word that a die of ``sides`` may use; skipped words keep their place."""
        for block, word, value in self.words:
            if value < 2**32 - 2**32 % sides:
                return Drawn(sides, value % sides + 1, block, word)
        raise AssertionError("unreachable")

    def chain(self, die: Drawn) -> list[Drawn]:
        """Draw the explosion chain of a die that counts: same size first, then down."""
        added: list[Drawn] = []
        last, size = die, die.sides
        while last.face == last.sides:
            size = die.sides if not added else LADDER[min(LADDER.index(size) + 1, 5)]
            last = self.draw(size)
            added.append(last)
        return added

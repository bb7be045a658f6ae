"""Derive a nonce's seeded dice again from the revealed epoch seed, with the reference."""

from __future__ import annotations

from collections.abc import Sequence

from diceledger.domain.dice.sources import Draw
from diceledger.domain.session import events as ev
from diceledger.domain.verification.reference import ReadableSeed


def rederive(
    seed: bytes,
    session_id: str,
    nonce: int,
    client_seed: str,
    salt: str,
    dice: Sequence[ev.DieRecord],
) -> list[Draw]:
    """Return the draws the seed gives for the recorded dice of one nonce, in order."""
    source = ReadableSeed(seed, session_id, nonce, client_seed, salt)
    return [source.draw(die.sides) for die in dice]


def matches(draw: Draw, die: ev.DieRecord) -> bool:
    """Tell whether a recorded die is exactly the derived draw (face, block and word)."""
    return (draw.face, draw.block, draw.word) == (die.face, die.block, die.word)

"""What a decision needs besides the state and the command: who acts, when, and their dice."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from diceledger.domain.dice.sources import DiceSource, ManualSource


class DiceFactory(Protocol):
    """Return the seeded dice source of one roll nonce of the current epoch."""

    def __call__(self, nonce: int, client_seed: str, salt: str) -> DiceSource: ...


# Return the source of faces typed in from physical dice.
TypedFactory = Callable[[tuple[int, ...]], DiceSource]
# Tell whether two member names could be mistaken for each other.
LookAlike = Callable[[str, str], bool]


def _no_dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
    raise AssertionError("this command draws no seeded dice")


def _same_name(name: str, other: str) -> bool:
    return name.casefold() == other.casefold()


@dataclass(frozen=True, slots=True)
class Context:
    """The acting name, the moment, and where dice come from for this decision.

    ``now`` is the time the command is decided at (the domain reads no clock); it is
    needed to end a session and to dispute after the end. ``typed`` turns typed-in faces
    into a dice source (verification hands the log's faces back through it). ``lookalike``
    judges member names; the application layer passes a Unicode confusables check.
    """

    actor: str
    dice: DiceFactory = _no_dice
    now: datetime | None = None
    typed: TypedFactory = ManualSource
    lookalike: LookAlike = _same_name

"""What a decision needs besides the state and the command: who acts, and their dice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from diceledger.domain.dice.sources import DiceSource


class DiceFactory(Protocol):
    """Return the seeded dice source of one roll nonce of the current epoch."""

    def __call__(self, nonce: int, client_seed: str, salt: str) -> DiceSource: ...


def _no_dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
    raise AssertionError("this command draws no seeded dice")


@dataclass(frozen=True, slots=True)
class Context:
    """The acting name and the factory of seeded dice for this decision."""

    actor: str
    dice: DiceFactory = _no_dice

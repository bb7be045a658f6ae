"""Checks against a target (R3-R5) and opposed checks round by round (R6)."""

from __future__ import annotations

from dataclasses import dataclass

from diceledger.domain.dice.engine import RollState, accept, start
from diceledger.domain.dice.request import RollSpec, Target
from diceledger.domain.dice.sources import DiceSource
from diceledger.domain.errors import RollError

MAX_OPPOSED_ROUNDS = 100


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """A check's total compared with its target: meet or beat succeeds (R3)."""

    total: int
    target: int
    success: bool
    margin: int


def judge(total: int, target: Target) -> CheckOutcome:
    """Compare a total with its target."""
    return CheckOutcome(total, target.value, total >= target.value, total - target.value)


@dataclass(frozen=True, slots=True)
class OpposedRound:
    """One round of an opposed check: each side's resolved roll."""

    first: RollState
    second: RollState

    @property
    def winner(self) -> int | None:
        """Return 0 or 1 for the side with the higher total, None on a tie."""
        if self.first.total == self.second.total:
            return None
        return 0 if self.first.total > self.second.total else 1


def opposed(first: RollSpec, second: RollSpec, source: DiceSource) -> tuple[OpposedRound, ...]:
    """Roll both sides, round after round while they tie (R6); every round is kept."""
    rounds: list[OpposedRound] = []
    while len(rounds) < MAX_OPPOSED_ROUNDS:
        # Draw order: the first side's dice with their explosions, then the second's.
        a = accept(start(first, source))
        rounds.append(OpposedRound(a, accept(start(second, source))))
        if rounds[-1].winner is not None:
            return tuple(rounds)
    raise RollError(
        f"the opposed check tied {MAX_OPPOSED_ROUNDS} rounds in a row; the dice source looks broken"
    )

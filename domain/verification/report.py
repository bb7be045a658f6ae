"""What a verification found: counts of what was checked, and the failures by position."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from diceledger.domain.json import JsonObject


class Anchor(StrEnum):
    """What a verification trusted the log against (docs/verification.md, "What a log proves").

    A log alone proves it agrees with itself; a checkpoint its source signed proves it is
    the log that source signed; only a checkpoint kept from earlier also proves that
    nothing was cut from its end or rewritten with fresh hashes since.
    """

    LOG_ALONE = "log-alone"
    SIGNED_CHECKPOINT = "signed-checkpoint"
    KEPT_CHECKPOINT = "kept-checkpoint"


@dataclass(frozen=True, slots=True)
class Failure:
    """One check that did not hold, at the event where it shows."""

    position: int
    stream_version: int
    reason: str

    def __str__(self) -> str:
        return f"position {self.position} (version {self.stream_version}): {self.reason}"


@dataclass
class Report:
    """The summary of a verification; ``ok`` when no check failed."""

    session_id: str | None = None
    events: int = 0
    rolls: int = 0
    dice_verified: int = 0
    manual_dice: int = 0
    unverifiable_dice: int = 0
    unrevealed_epochs: list[int] = field(default_factory=list)
    # Hidden blind rolls whose events the log holds sealed: not yet checkable.
    sealed_rolls: list[int] = field(default_factory=list)
    sealed_events: int = 0
    failures: list[Failure] = field(default_factory=list)
    anchor: Anchor = Anchor.LOG_ALONE

    @property
    def ok(self) -> bool:
        """Tell whether every check held."""
        return not self.failures

    @property
    def first_failure(self) -> Failure | None:
        """Return the failure that shows earliest in the log."""
        return min(self.failures, key=lambda f: f.position) if self.failures else None

    def as_dict(self) -> JsonObject:
        """Return the report as JSON-ready data."""
        first = self.first_failure
        return {
            "session_id": self.session_id,
            "ok": self.ok,
            "events": self.events,
            "rolls": self.rolls,
            "dice_verified": self.dice_verified,
            "manual_dice": self.manual_dice,
            "not_yet_verifiable_dice": self.unverifiable_dice,
            "unrevealed_epochs": [*self.unrevealed_epochs],
            "sealed_rolls": [*self.sealed_rolls],
            "sealed_events": self.sealed_events,
            "anchor": self.anchor.value,
            "first_failure": None
            if first is None
            else {
                "position": first.position,
                "stream_version": first.stream_version,
                "reason": first.reason,
            },
            "failures": [
                {"position": f.position, "stream_version": f.stream_version, "reason": f.reason}
                for f in sorted(self.failures, key=lambda f: f.position)[:20]
            ],
        }

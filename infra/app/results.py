"""What the application layer answers: typed results that every face renders its own way.

Each result is a snapshot taken while its session was locked, so a face may read it after
the call even while other requests change the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeAlias

from diceledger.domain.dice.request import RerollScope
from diceledger.domain.json import JsonObject
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session.opposed import side_name, waiting_side
from diceledger.domain.session.state import Epoch, Member, Roll, SessionState
from diceledger.domain.session.views import rerolls_open, roll_view, session_view

# Named in annotations only: importing them would load the projections and the odds engine
# into every command that merely rolls.
if TYPE_CHECKING:
    from diceledger.domain.export_proof import ExportProof
    from diceledger.domain.projections.directory import Entry
    from diceledger.domain.projections.luck import LuckStep
    from diceledger.domain.projections.report import PlayerReport
    from diceledger.domain.projections.timeline import Line


@dataclass(frozen=True, slots=True)
class RollResult:
    """One roll as its viewer may see it, and the events the command appended."""

    session_id: str
    viewer: str
    viewer_is_gm: bool
    roll: Roll
    rerolls_left: int  # for whoever it waits for: of an opposed check, the side on turn
    reroll_scope: RerollScope
    view: JsonObject
    appended: tuple[RecordedEvent, ...] = ()
    checkpoint: str | None = None  # the signed checkpoint the command produced
    waiting_for: str | None = None  # an opposed check's side whose turn it is

    @classmethod
    def of(
        cls,
        state: SessionState,
        roll_id: int,
        viewer: str,
        appended: tuple[RecordedEvent, ...],
        checkpoint: str | None = None,
    ) -> RollResult:
        """Snapshot roll ``roll_id`` of ``state`` for ``viewer``."""
        roll = state.rolls[roll_id]
        left, scope = rerolls_open(state, roll)
        side = waiting_side(state, roll)
        return cls(
            session_id=state.session_id or "",
            viewer=viewer,
            viewer_is_gm=state.is_gm(viewer),
            roll=roll.snapshot(),
            rerolls_left=left,
            reroll_scope=scope,
            view=roll_view(state, roll, viewer),
            appended=appended,
            checkpoint=checkpoint,
            waiting_for=None if side is None else side_name(roll.request, side),
        )


@dataclass(frozen=True, slots=True)
class SessionStartedResult:
    """A new session: its id, its GM and the commitment to its first seed."""

    session_id: str
    title: str
    gm: str
    commitment: str
    appended: tuple[RecordedEvent, ...]
    checkpoint: str | None = None  # the signed checkpoint the command produced


@dataclass(frozen=True, slots=True)
class MemberResult:
    """A member who joined (or was added to) a session."""

    session_id: str
    member: Member
    appended: tuple[RecordedEvent, ...]
    checkpoint: str | None = None  # the signed checkpoint the command produced


@dataclass(frozen=True, slots=True)
class SeedRevealResult:
    """The epoch whose seed was revealed, and the epoch that follows it."""

    session_id: str
    revealed: Epoch
    current: Epoch
    appended: tuple[RecordedEvent, ...]
    checkpoint: str | None = None  # the signed checkpoint the command produced


@dataclass(frozen=True, slots=True)
class SessionEndResult:
    """An ended session and the last epoch, now revealed."""

    session_id: str
    last_epoch: Epoch
    disputes_until: datetime | None
    appended: tuple[RecordedEvent, ...]
    checkpoint: str | None = None  # the signed checkpoint the command produced


@dataclass(frozen=True, slots=True)
class DisputeResult:
    """A dispute opened or ruled on."""

    session_id: str
    roll_id: int
    by: str
    outcome: str  # "open", "upheld" or "voided"
    note: str | None
    appended: tuple[RecordedEvent, ...]
    checkpoint: str | None = None  # the signed checkpoint the command produced


@dataclass(frozen=True, slots=True)
class SessionResult:
    """A whole session as its viewer may see it."""

    viewer: str
    state: SessionState
    view: JsonObject

    @classmethod
    def of(cls, state: SessionState, viewer: str) -> SessionResult:
        """Snapshot ``state`` for ``viewer``."""
        return cls(viewer, state.snapshot(), session_view(state, viewer))


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """A session's timeline as the viewer may see it, up to a moment if one was asked."""

    session_id: str
    lines: tuple[Line, ...]
    as_of: JsonObject | None  # members, open rolls and totals then; None for a full replay


@dataclass(frozen=True, slots=True)
class StatisticsResult:
    """Per-player statistics in the scope the viewer may see."""

    viewer: str
    reports: tuple[PlayerReport, ...]


@dataclass(frozen=True, slots=True)
class LuckResult:
    """Each player's rated checks of one session, in the order they resolved."""

    session_id: str
    series: dict[str, tuple[LuckStep, ...]]


@dataclass(frozen=True, slots=True)
class ExportResult:
    """A session's events as JSON Lines, and how many there are."""

    session_id: str
    events: int
    ended: bool  # an open session's seed stays in this store
    lines: Iterator[str]
    proof: ExportProof | None = None  # the signed checkpoint of exactly these events


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import read and what it appended, and each session's checkpoint after it."""

    events: int
    appended: int
    checkpoints: tuple[tuple[str, str], ...] = ()  # (session id, signed checkpoint)


@dataclass(frozen=True, slots=True)
class ProjectionStatus:
    """How far one persisted projection has read the store."""

    name: str  # its checkpoint's name
    label: str  # what people call it
    checkpoint: int
    head: int
    behind: int  # positions still to read (an upper bound); 0 when it is up to date
    folded: int = 0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Moment:
    """Where an as-of replay stops: after a store position, at a time, or both."""

    until_position: int | None = None
    at: datetime | None = None

    @property
    def given(self) -> bool:
        """Tell whether the replay stops anywhere before the end."""
        return self.until_position is not None or self.at is not None


SessionDirectory: TypeAlias = "tuple[Entry, ...]"

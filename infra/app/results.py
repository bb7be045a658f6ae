"""What the application layer answers: typed results that every face renders its own way.

Each result is a snapshot taken while its session was locked, so a face may read it after
the call even while other requests change the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from diceledger.domain.dice.request import RerollScope
from diceledger.domain.json import JsonObject
from diceledger.domain.projections.directory import Entry
from diceledger.domain.projections.report import PlayerReport
from diceledger.domain.projections.timeline import Line
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session.state import Epoch, Member, Roll, SessionState
from diceledger.domain.session.views import roll_view, session_view


@dataclass(frozen=True, slots=True)
class RollResult:
    """One roll as its viewer may see it, and the events the command appended."""

    session_id: str
    viewer: str
    viewer_is_gm: bool
    roll: Roll
    rerolls_left: int
    reroll_scope: RerollScope
    view: JsonObject
    appended: tuple[RecordedEvent, ...] = ()

    @classmethod
    def of(
        cls, state: SessionState, roll_id: int, viewer: str, appended: tuple[RecordedEvent, ...]
    ) -> RollResult:
        """Snapshot roll ``roll_id`` of ``state`` for ``viewer``."""
        roll = state.rolls[roll_id]
        action = state.actions[roll.request.action_id]
        return cls(
            session_id=state.session_id or "",
            viewer=viewer,
            viewer_is_gm=state.is_gm(viewer),
            roll=roll.snapshot(),
            rerolls_left=action.remaining,
            reroll_scope=action.scope,
            view=roll_view(state, roll, viewer),
            appended=appended,
        )


@dataclass(frozen=True, slots=True)
class SessionStartedResult:
    """A new session: its id, its GM and the commitment to its first seed."""

    session_id: str
    title: str
    gm: str
    commitment: str
    appended: tuple[RecordedEvent, ...]


@dataclass(frozen=True, slots=True)
class MemberResult:
    """A member who joined (or was added to) a session."""

    session_id: str
    member: Member
    appended: tuple[RecordedEvent, ...]


@dataclass(frozen=True, slots=True)
class SeedRevealResult:
    """The epoch whose seed was revealed, and the epoch that follows it."""

    session_id: str
    revealed: Epoch
    current: Epoch
    appended: tuple[RecordedEvent, ...]


@dataclass(frozen=True, slots=True)
class SessionEndResult:
    """An ended session and the last epoch, now revealed."""

    session_id: str
    last_epoch: Epoch
    disputes_until: datetime | None
    appended: tuple[RecordedEvent, ...]


@dataclass(frozen=True, slots=True)
class DisputeResult:
    """A dispute opened or ruled on."""

    session_id: str
    roll_id: int
    by: str
    outcome: str  # "open", "upheld" or "voided"
    note: str | None
    appended: tuple[RecordedEvent, ...]


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
class ExportResult:
    """A session's events as JSON Lines, and how many there are."""

    session_id: str
    events: int
    ended: bool  # an open session's seed stays in this store
    lines: Iterator[str]


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import read and what it appended."""

    events: int
    appended: int


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


SessionDirectory = tuple[Entry, ...]

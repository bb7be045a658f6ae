"""What the application layer answers: typed results that every face renders its own way.

Each result is a snapshot taken while its session was locked, so a face may read it after
the call even while other requests change the session. A face never sees the session
state itself: each roll reaches it as a ShownRoll or a HiddenRoll, decided here once for
the viewer, so a face that renders only what it is given cannot leak a hidden roll.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias, TypedDict

from diceledger.domain.dice.request import RerollScope
from diceledger.domain.hashchain import format_timestamp
from diceledger.domain.json import JsonObject
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session.commands import Turn
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.opposed import open_standing, side_name
from diceledger.domain.session.rolls import rounds_of
from diceledger.domain.session.state import AWAITING, GM, Epoch, Member, Roll, SessionState
from diceledger.domain.session.views import (
    hidden_roll_view,
    rerolls_open,
    roll_view,
    session_view,
)
from diceledger.domain.session.visibility import Viewer, may_see

# Named in annotations only: importing them would load the projections and the odds engine
# into every command that merely rolls.
if TYPE_CHECKING:
    from diceledger.domain.export_proof import ExportProof
    from diceledger.domain.projections.directory import Entry
    from diceledger.domain.projections.luck import LuckStep
    from diceledger.domain.projections.report import PlayerReport
    from diceledger.domain.projections.timeline import Line


@dataclass(frozen=True, slots=True)
class ShownRoll:
    """A roll its viewer may see whole: the request, every die, the outcome.

    Only the application layer makes one, and only for a viewer the session's visibility
    rule (domain/session/visibility.py) lets see the roll; anyone else gets a HiddenRoll.
    """

    session_id: str
    roll: Roll  # a snapshot: later events of the session leave it as it is
    rerolls_left: int  # for whoever it waits for: of an opposed check, the side on turn
    reroll_scope: RerollScope
    view: JsonObject  # the roll as data (the --json and API shape)
    waiting_for: str | None = None  # an opposed check's side whose turn it is
    turn: Turn | None = None  # and that turn (side, round); a command may name it
    awaits_dice: bool = False  # the side on turn has yet to roll its own dice (RollSide)

    @property
    def roll_id(self) -> int:
        """Return the roll's number within the session."""
        return self.roll.roll_id

    @property
    def awaiting(self) -> bool:
        """Tell whether the roll still waits for rerolls or an accept."""
        return self.roll.status == AWAITING


@dataclass(frozen=True, slots=True)
class HiddenRoll:
    """A roll its viewer may not see: only that it happened, and who rolled."""

    session_id: str
    roll_id: int
    roller: str
    mode: RollMode
    text: str  # what the viewer reads of it: "Ann rolled privately", "the GM rolled blind"
    view: JsonObject  # the same stub in every output


SeenRoll: TypeAlias = ShownRoll | HiddenRoll


def seen_roll(state: SessionState, roll: Roll, viewer: Viewer) -> SeenRoll:
    """Return ``roll`` of ``state`` as ``viewer`` may see it: the one place that decides."""
    session_id = state.session_id or ""
    if not may_see(state, roll, viewer):
        view = hidden_roll_view(state, roll)
        text = str(view["text"])
        return HiddenRoll(session_id, roll.roll_id, roll.request.roller, roll.mode, text, view)
    left, scope = rerolls_open(state, roll)
    check = open_standing(state, roll)  # once: whose turn, and whether it is to roll
    side = None if check is None else check.turn
    return ShownRoll(
        session_id=session_id,
        roll=roll.snapshot(),
        rerolls_left=left,
        reroll_scope=scope,
        view=roll_view(state, roll, viewer),
        waiting_for=None if side is None else side_name(roll.request, side),
        turn=None if side is None else Turn(side, rounds_of(roll)),
        awaits_dice=check is not None and check.awaits_dice,
    )


@dataclass(frozen=True, slots=True)
class RollResult:
    """One roll as its viewer may see it, and the events the command appended."""

    session_id: str
    viewer: Viewer
    roll: SeenRoll
    appended: tuple[RecordedEvent, ...] = ()
    checkpoint: str | None = None  # the signed checkpoint the command produced

    @classmethod
    def of(
        cls,
        state: SessionState,
        roll_id: int,
        viewer: Viewer,
        appended: tuple[RecordedEvent, ...],
        checkpoint: str | None = None,
    ) -> RollResult:
        """Snapshot roll ``roll_id`` of ``state`` for ``viewer``."""
        roll = seen_roll(state, state.rolls[roll_id], viewer)
        return cls(state.session_id or "", viewer, roll, appended, checkpoint)

    @property
    def view(self) -> JsonObject:
        """Return the roll as data, as the viewer may see it."""
        return self.roll.view


@dataclass(frozen=True, slots=True)
class MemberView:
    """A member of a session, as anyone in it sees them."""

    name: str
    role: str  # "gm" or "player"
    client_seed: str

    @classmethod
    def of(cls, member: Member) -> MemberView:
        """Copy a member of the session state."""
        return cls(member.name, member.role, member.client_seed)

    @property
    def is_gm(self) -> bool:
        """Tell whether this member is a GM or co-GM."""
        return self.role == GM


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
    member: MemberView
    appended: tuple[RecordedEvent, ...]
    checkpoint: str | None = None  # the signed checkpoint the command produced


class SeedRevealAnswer(TypedDict):
    """What every face answers to a seed's reveal."""

    session_id: str
    epoch: int
    seed: str
    commitment: str
    next_epoch: int
    next_commitment: str
    checkpoint: str | None


@dataclass(frozen=True, slots=True)
class SeedRevealResult:
    """The epoch whose seed was revealed, and the epoch that follows it."""

    session_id: str
    revealed: Epoch
    current: Epoch
    appended: tuple[RecordedEvent, ...]
    checkpoint: str | None = None  # the signed checkpoint the command produced

    def answer(self) -> SeedRevealAnswer:
        """Return the answer of every face: the seed revealed, the next one committed."""
        return SeedRevealAnswer(
            session_id=self.session_id,
            epoch=self.revealed.number,
            seed=self.revealed.seed or "",  # a reveal's epoch always holds its seed
            commitment=self.revealed.commitment,
            next_epoch=self.current.number,
            next_commitment=self.current.commitment,
            checkpoint=self.checkpoint,
        )


class SessionEndAnswer(TypedDict):
    """What every face answers to a session's end."""

    session_id: str
    ended: Literal[True]
    epoch: int
    seed: str
    disputes_until: str | None
    checkpoint: str | None


@dataclass(frozen=True, slots=True)
class SessionEndResult:
    """An ended session and the last epoch, now revealed."""

    session_id: str
    last_epoch: Epoch
    disputes_until: datetime | None
    appended: tuple[RecordedEvent, ...]
    checkpoint: str | None = None  # the signed checkpoint the command produced

    def answer(self) -> SessionEndAnswer:
        """Return the answer of every face: the last seed, and when disputes close."""
        until = self.disputes_until
        return SessionEndAnswer(
            session_id=self.session_id,
            ended=True,
            epoch=self.last_epoch.number,
            seed=self.last_epoch.seed or "",  # the end reveals the last epoch's seed
            disputes_until=None if until is None else format_timestamp(until),
            checkpoint=self.checkpoint,
        )


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
class SessionView:
    """A whole session as its viewer may see it: each roll shown or hidden, decided once."""

    session_id: str
    title: str
    gm: str
    ended: bool
    manual_dice_allowed: bool
    version: int  # the stream version the view was taken at
    viewer: Viewer
    viewer_is_gm: bool
    members: tuple[MemberView, ...]
    epochs: tuple[Epoch, ...]
    rolls: tuple[SeenRoll, ...]
    view: JsonObject  # the session as data (the --json and API shape)

    @classmethod
    def of(cls, state: SessionState, viewer: Viewer) -> SessionView:
        """Snapshot ``state`` for ``viewer``."""
        return cls(
            session_id=state.session_id or "",
            title=state.title,
            gm=state.creator,
            ended=state.ended,
            manual_dice_allowed=state.manual_dice_allowed,
            version=state.version,
            viewer=viewer,
            viewer_is_gm=isinstance(viewer, str) and state.is_gm(viewer),
            members=tuple(MemberView.of(m) for m in state.members.values()),
            epochs=tuple(replace(e) for e in state.epochs),
            rolls=tuple(seen_roll(state, roll, viewer) for roll in state.rolls.values()),
            view=session_view(state, viewer),
        )

    @property
    def disputed(self) -> tuple[int, ...]:
        """Return the rolls the viewer sees with a dispute not yet ruled on."""
        return tuple(
            r.roll_id for r in self.rolls if isinstance(r, ShownRoll) and r.roll.open_dispute
        )


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
class ExportFileResult:
    """An export written to a file, and where its proof went (None: no checkpoint yet)."""

    session_id: str
    events: int
    ended: bool  # an open session's seed stays in this store
    proof: Path | None


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

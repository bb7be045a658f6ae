"""The session directory: what `session list` shows of each session, folded from events.

A batch of events becomes a ``DirectoryChanges``: sessions started, members who joined,
rolls requested per session and sessions ended. Each part only grows, so applying the
changes of consecutive batches gives what one pass over the whole log gives. A member
who joins again (a player made co-GM) is still one member, as in ``SessionState``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import assert_never

from diceledger.domain.projections.logged import Logged
from diceledger.domain.session import events as ev

# The only events the directory reads; a reader may skip decoding the others.
READS: tuple[type[ev.Event], ...] = (
    ev.SessionStarted,
    ev.PlayerJoined,
    ev.RollRequested,
    ev.SessionEnded,
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One session as listed: in the order sessions were started."""

    session_id: str
    title: str
    gm: str
    members: int
    rolls: int
    ended: bool


@dataclass(frozen=True, slots=True)
class Started:
    """A session's opening facts and the log position that orders the listing."""

    title: str
    gm: str
    position: int


@dataclass
class DirectoryChanges:
    """What a batch of events adds to the directory."""

    started: dict[str, Started] = field(default_factory=dict)
    joined: set[tuple[str, str]] = field(default_factory=set)  # (session, name)
    rolls: Counter[str] = field(default_factory=Counter)
    ended: set[str] = field(default_factory=set)

    def apply(self, item: Logged) -> None:
        """Add one event's contribution."""
        event, session_id = item.event, item.stream_id
        match event:
            case ev.SessionStarted():
                self.started[session_id] = Started(event.title, event.gm, item.position)
            case ev.PlayerJoined():
                self.joined.add((session_id, event.name))
            case ev.RollRequested():
                self.rolls[session_id] += 1
            case ev.SessionEnded():
                self.ended.add(session_id)
            case (
                ev.SeedCommitted()
                | ev.SeedRevealed()
                | ev.DiceRolled()
                | ev.DieExploded()
                | ev.DieRerolled()
                | ev.RollAccepted()
                | ev.RollResolved()
                | ev.CheckResolved()
                | ev.OpposedCheckTied()
                | ev.RollDisputed()
                | ev.DisputeResolved()
                | ev.RollRevealed()
                | ev.SheetRightsSet()
                | ev.CharacterCreated()
                | ev.AttributeSet()
                | ev.QualitySet()
                | ev.RollSaved()
                | ev.CharacterRetired()
            ):
                pass  # seeds and what happens within a roll do not change a listing
            case _:
                assert_never(event)


def directory_changes(events: Iterable[Logged]) -> DirectoryChanges:
    """Fold events (in log order) into the directory changes they make."""
    changes = DirectoryChanges()
    for item in events:
        changes.apply(item)
    return changes

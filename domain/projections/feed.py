"""The live feed fold: a session's timeline for one viewer, extended as events arrive.

Each batch of new events is shown as a replay would show it at that moment: which blind
rolls stay hidden is decided by the session as it stands after the batch, and each event
that belongs to a roll carries that roll's view as it stands then. So a blind roll shows to
a player as "the GM rolled blind", with the hidden stub for its view, until the batch that
reveals it; its RollRevealed item then carries the revealed roll in full.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from diceledger.domain.json import JsonObject
from diceledger.domain.projections.logged import Logged
from diceledger.domain.projections.timeline import Line, line_of
from diceledger.domain.session import events as ev
from diceledger.domain.session.state import SessionState, evolve
from diceledger.domain.session.views import roll_view
from diceledger.domain.session.visibility import hidden_from

REVEALED = "RollRevealed"  # what a roll the end shows is fed as, like any reveal


@dataclass(frozen=True, slots=True)
class FeedItem:
    """One event of the feed: its timeline line, and its roll's view when it has a roll."""

    version: int
    event: str
    line: Line
    roll: JsonObject | None


class Feed:
    """Fold one session for one viewer and say what each new event shows them."""

    def __init__(self, viewer: str) -> None:
        self._viewer = viewer
        # The session after the newest event read, which decides what stays hidden...
        self._head = SessionState()
        # ...and the session after each event in turn, which its line is read against.
        self._told = SessionState()

    @property
    def version(self) -> int:
        """Return the version of the newest event folded (0 before any)."""
        return self._head.version

    def extend(self, logged: Iterable[Logged], after: int = 0) -> list[FeedItem]:
        """Fold the next events in order; return the items of those with version > ``after``.

        A batch ends where an append ended (a store read does): a roll's view needs the
        whole command that made it, not its request alone.
        """
        batch = list(logged)
        ending = any(isinstance(item.event, ev.SessionEnded) for item in batch)
        was_hidden = hidden_from(self._head, self._viewer) if ending else frozenset()
        for item in batch:
            evolve(self._head, item.version, item.event)
        hidden = hidden_from(self._head, self._viewer)
        views: dict[int, JsonObject] = {}  # a roll's events in one batch share its view
        shown = []
        for item in batch:
            evolve(self._told, item.version, item.event)
            if item.version > after:
                shown.append(self._item(item, hidden, views))
                if isinstance(item.event, ev.SessionEnded):
                    shown += self._shown_at_end(item, was_hidden - hidden)
        return shown

    def _shown_at_end(self, item: Logged, shown: frozenset[int]) -> list[FeedItem]:
        """Return a reveal item for each roll the end shows this viewer (a self roll).

        The end reveals every self roll with no event of its own; each is fed as a reveal,
        with the roll in full, so an open page shows it as it shows any other reveal.
        """
        items = []
        for roll_id in sorted(shown):
            roll = self._head.rolls[roll_id]
            text = f"#{roll_id} {roll.mode} roll shown at the end of the session"
            line = Line(
                item.position,
                item.version,
                item.recorded_at,
                item.actor,
                REVEALED,
                roll_id,
                False,
                text,
                {"roll_id": roll_id},
            )
            view = roll_view(self._head, roll, self._viewer)
            items.append(FeedItem(item.version, REVEALED, line, view))
        return items

    def _item(self, item: Logged, hidden: frozenset[int], views: dict[int, JsonObject]) -> FeedItem:
        line = line_of(self._told, item, hidden)
        roll_id = line.roll_id
        if roll_id is not None and roll_id not in views:
            views[roll_id] = roll_view(self._head, self._head.rolls[roll_id], self._viewer)
        return FeedItem(item.version, line.event, line, None if roll_id is None else views[roll_id])

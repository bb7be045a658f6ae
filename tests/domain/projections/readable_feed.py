"""One viewer's live feed written out plainly: the oracle the shared fold is held to.

Each viewer folds the session on its own and builds every line and roll view for itself,
as the feed did before a worker folded once for all its streams. Production folds with
``diceledger.domain.projections.feed``; this is slower and kept only so that property
tests can say both show every viewer exactly the same items.
"""

from __future__ import annotations

from collections.abc import Iterable

from diceledger.domain.json import JsonObject
from diceledger.domain.projections.feed import FeedItem
from diceledger.domain.projections.logged import Logged
from diceledger.domain.projections.timeline import line_of
from diceledger.domain.session.state import SessionState, evolve
from diceledger.domain.session.views import roll_view
from diceledger.domain.session.visibility import hidden_from


class ReadableFeed:
    """Fold one session for one viewer and say what each new event shows them."""

    def __init__(self, viewer: str) -> None:
        self._viewer = viewer
        self._head = SessionState()  # after the newest event: decides what stays hidden
        self._told = SessionState()  # after each event in turn: its line is read against it

    def extend(self, logged: Iterable[Logged], after: int = 0) -> list[FeedItem]:
        """Fold the next events in order; return the items of those with version > ``after``."""
        batch = list(logged)
        for item in batch:
            evolve(self._head, item.version, item.event)
        hidden = hidden_from(self._head, self._viewer)
        shown = []
        for item in batch:
            evolve(self._told, item.version, item.event)
            if item.version > after:
                line = line_of(self._told, item, hidden)
                view: JsonObject | None = None
                if line.roll_id is not None:
                    roll = self._head.rolls[line.roll_id]
                    view = roll_view(self._head, roll, self._viewer)
                shown.append(FeedItem(item.version, line.event, line, view))
        return shown

"""The live feed fold: a session's timeline for its viewers, extended as events arrive.

Each batch of new events is shown as a replay would show it at that moment: which blind
rolls stay hidden is decided by the session as it stands after the batch, and each event
that belongs to a roll carries that roll's view as it stands then. So a blind roll shows to
a player as "the GM rolled blind", with the hidden stub for its view, until the batch that
reveals it; its RollRevealed item then carries the revealed roll in full.

The session is folded once for all its viewers (``SharedFeed``). A viewer sees each roll in
one of a few sights (visibility.Sight), so a batch's lines, roll views and their JSON are
built once per sight that some viewer has, and viewers who see alike share the very items.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from diceledger.domain.json import JsonObject
from diceledger.domain.projections.logged import Logged
from diceledger.domain.projections.timeline import Line, line_of
from diceledger.domain.session.events import SessionEnded, roll_id_of
from diceledger.domain.session.state import SessionState, evolve
from diceledger.domain.session.views import sighted_roll_view
from diceledger.domain.session.visibility import Sight, Viewer, sight_of

REVEALED = "RollRevealed"  # what a roll the end shows is fed as, like any reveal


@dataclass(frozen=True)
class FeedItem:
    """One event of the feed: its timeline line, and its roll's view when it has a roll."""

    version: int
    event: str
    line: Line
    roll: JsonObject | None

    @cached_property
    def data(self) -> str:
        """Return the item as one line of JSON, ``{"line": ..., "roll": ...}``: encoded
        on first use, once for every viewer the item is shared by."""
        document = {"line": self.line.as_json(), "roll": self.roll}
        return json.dumps(document, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class _Told:
    """One event of a batch with its line as everyone sees it, and as those who may not
    see its roll do (None when everyone may)."""

    logged: Logged
    roll_id: int | None
    line: Line
    secret: Line | None


# What each viewer is shown of one batch; viewers who see alike share the same tuple.
Shown = dict[Viewer, tuple[FeedItem, ...]]


class SharedFeed:
    """Fold one session once and say what each new event shows each of its viewers."""

    def __init__(self) -> None:
        # The session after the newest event read, which decides what stays hidden...
        self._head = SessionState()
        # ...and the session after each event in turn, which its line is read against.
        self._told = SessionState()

    @property
    def version(self) -> int:
        """Return the version of the newest event folded (0 before any)."""
        return self._head.version

    def extend(self, logged: Iterable[Logged], viewers: Iterable[Viewer]) -> Shown:
        """Fold the next events in order; return what each of ``viewers`` is shown of them.

        A batch ends where an append ended (a store read does): a roll's view needs the
        whole command that made it, not its request alone.
        """
        batch = list(logged)
        viewers = list(viewers)
        ending = any(isinstance(item.event, SessionEnded) for item in batch)
        was_hidden = {viewer: self._hidden(viewer) for viewer in viewers} if ending else {}
        for item in batch:
            evolve(self._head, item.version, item.event)
        told = [self._tell(item) for item in batch]
        rolls = sorted({one.roll_id for one in told if one.roll_id is not None})
        items: dict[tuple[int, Sight | None], FeedItem] = {}
        views: dict[tuple[int, Sight], JsonObject] = {}  # a roll's events share its view
        by_sights: dict[tuple[Sight, ...], tuple[FeedItem, ...]] = {}
        shown: Shown = {}
        for viewer in viewers:
            sights = tuple(sight_of(self._head, self._head.rolls[r], viewer) for r in rolls)
            if sights not in by_sights:
                sight_of_roll = dict(zip(rolls, sights, strict=True))
                by_sights[sights] = tuple(
                    self._item(one, sight_of_roll, items, views) for one in told
                )
            shown[viewer] = by_sights[sights]
            if ending:
                shown[viewer] = self._with_end_reveals(
                    shown[viewer], was_hidden[viewer] - self._hidden(viewer), viewer
                )
        return shown

    def _hidden(self, viewer: Viewer) -> frozenset[int]:
        head = self._head
        return frozenset(
            roll.roll_id
            for roll in head.rolls.values()
            if roll.hidden and sight_of(head, roll, viewer) is Sight.HIDDEN
        )

    def _with_end_reveals(
        self, items: tuple[FeedItem, ...], shown: frozenset[int], viewer: Viewer
    ) -> tuple[FeedItem, ...]:
        """Put a reveal item after SessionEnded for each roll the end shows ``viewer``.

        The end reveals every self roll with no event of its own; each is fed as a reveal,
        with the roll in full, so an open page shows it as it shows any other reveal.
        """
        at = next((i for i, item in enumerate(items) if item.event == "SessionEnded"), None)
        if at is None or not shown:
            return items
        end = items[at].line
        reveals = []
        for roll_id in sorted(shown):
            roll = self._head.rolls[roll_id]
            text = f"#{roll_id} {roll.mode} roll shown at the end of the session"
            line = Line(
                end.position, end.version, end.recorded_at, end.actor, REVEALED, roll_id,
                False, text, {"roll_id": roll_id},
            )  # fmt: skip
            view = sighted_roll_view(self._head, roll, sight_of(self._head, roll, viewer))
            reveals.append(FeedItem(end.version, REVEALED, line, view))
        return (*items[: at + 1], *reveals, *items[at + 1 :])

    def _tell(self, item: Logged) -> _Told:
        evolve(self._told, item.version, item.event)
        roll_id = roll_id_of(item.event)
        line = line_of(self._told, item, frozenset())
        if roll_id is None or not self._head.rolls[roll_id].hidden:
            return _Told(item, roll_id, line, None)
        return _Told(item, roll_id, line, line_of(self._told, item, frozenset((roll_id,))))

    def _item(
        self,
        told: _Told,
        sight_of_roll: dict[int, Sight],
        items: dict[tuple[int, Sight | None], FeedItem],
        views: dict[tuple[int, Sight], JsonObject],
    ) -> FeedItem:
        roll_id = told.roll_id
        sight = None if roll_id is None else sight_of_roll[roll_id]
        key = (told.logged.version, sight)
        if key in items:
            return items[key]
        if roll_id is None or sight is None:
            item = FeedItem(told.logged.version, told.line.event, told.line, None)
        else:
            line = told.secret if sight is Sight.HIDDEN and told.secret else told.line
            if (roll_id, sight) not in views:
                roll = self._head.rolls[roll_id]
                views[roll_id, sight] = sighted_roll_view(self._head, roll, sight)
            item = FeedItem(told.logged.version, line.event, line, views[roll_id, sight])
        items[key] = item
        return item


class Feed:
    """One viewer's feed of a session: the shared fold, told of that viewer alone."""

    def __init__(self, viewer: Viewer) -> None:
        self._viewer = viewer
        self._fold = SharedFeed()

    @property
    def version(self) -> int:
        """Return the version of the newest event folded (0 before any)."""
        return self._fold.version

    def extend(self, logged: Iterable[Logged], after: int = 0) -> list[FeedItem]:
        """Fold the next events in order; return the items of those with version > ``after``."""
        shown = self._fold.extend(logged, (self._viewer,))[self._viewer]
        return [item for item in shown if item.version > after]

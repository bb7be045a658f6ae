"""An event as the projections see it: decoded, with its place and time in the log."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from diceledger.domain.session.events import Event
from diceledger.domain.session.state import SessionState, evolve


@dataclass(frozen=True, slots=True)
class Logged:
    """One decoded event with its store position, stream version, time and actor."""

    position: int
    stream_id: str
    version: int
    recorded_at: datetime
    actor: str
    event: Event


def state_as_of(
    logged: Iterable[Logged], until_position: int | None = None, at: datetime | None = None
) -> SessionState:
    """Fold a session's events up to a position and/or a time (both inclusive)."""
    state = SessionState()
    for item in until(logged, until_position, at):
        evolve(state, item.version, item.event)
    return state


def until(
    logged: Iterable[Logged], until_position: int | None = None, at: datetime | None = None
) -> Iterator[Logged]:
    """Yield the events recorded at or before ``until_position`` and ``at``."""
    for item in logged:
        if until_position is not None and item.position > until_position:
            return
        if at is not None and item.recorded_at > at:
            return
        yield item

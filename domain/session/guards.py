"""Who may do what in a session (roles and visibility); each refusal is one line."""

from __future__ import annotations

from diceledger.domain.errors import (
    CommandRefusedError,
    NotAMemberError,
    NotFoundError,
    PermissionDeniedError,
)
from diceledger.domain.session.state import Roll, SessionState


def require_open(state: SessionState) -> None:
    """Refuse commands on a session that does not exist or has ended."""
    if not state.started:
        raise NotFoundError("unknown session")
    if state.ended:
        raise CommandRefusedError(f"session '{state.session_id}' has ended")


def require_member(state: SessionState, actor: str) -> None:
    """Refuse someone who has not joined the session."""
    if actor not in state.members:
        raise NotAMemberError(actor, state.session_id or "")


def require_gm(state: SessionState, actor: str, action: str) -> None:
    """Refuse a GM-only action to anyone but a GM."""
    require_member(state, actor)
    if not state.is_gm(actor):
        raise PermissionDeniedError(f"only a GM may {action}")


def find_roll(state: SessionState, roll_id: int, actor: str) -> Roll:
    """Return a roll the actor may see; a hidden blind roll is unknown to players."""
    roll = state.rolls.get(roll_id)
    if roll is None or (roll.hidden and not state.is_gm(actor)):
        raise NotFoundError(f"no roll {roll_id} in session '{state.session_id}'")
    return roll

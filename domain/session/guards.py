"""Who may do what in a session (roles and visibility); each refusal is one line."""

from __future__ import annotations

from datetime import datetime

from diceledger.domain.errors import (
    CommandRefusedError,
    InvalidInputError,
    NotAMemberError,
    NotFoundError,
    PermissionDeniedError,
)
from diceledger.domain.hashchain import format_timestamp
from diceledger.domain.session.context import Context
from diceledger.domain.session.state import Roll, SessionState
from diceledger.domain.session.visibility import may_see


def require_open(state: SessionState) -> None:
    """Refuse commands on a session that does not exist or has ended."""
    if not state.started:
        raise NotFoundError("unknown session")
    if state.ended:
        raise CommandRefusedError(f"session '{state.session_id}' has ended")


def require_disputable(state: SessionState, now: datetime | None) -> None:
    """Refuse a dispute or ruling unless the session is open or in its window after the end."""
    if not state.ended:
        require_open(state)
        return
    until = state.disputes_until
    if until is None:
        raise CommandRefusedError(
            f"session '{state.session_id}' has ended and took no disputes after its end"
        )
    if now is None or now > until:
        raise CommandRefusedError(
            f"session '{state.session_id}' has ended and its dispute window closed at "
            f"{format_timestamp(until)}"
        )


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
    """Return a roll the actor may see; one they may not see is unknown to them."""
    roll = state.rolls.get(roll_id)
    if roll is None or not may_see(state, roll, actor):
        raise NotFoundError(f"no roll {roll_id} in session '{state.session_id}'")
    return roll


def refuse_lookalike(state: SessionState, name: str, ctx: Context) -> None:
    """Refuse a new name (a member's or an NPC's) a reader could take for a member's."""
    for other in state.members:
        if ctx.lookalike(name, other):
            raise InvalidInputError(
                f"{name!r} looks like {other!r}, already in session '{state.session_id}'; "
                "choose a name nobody can mistake for it"
            )

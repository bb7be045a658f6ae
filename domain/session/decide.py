"""The session aggregate's decision: ``(state, command) -> events``, or a refusal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide_followups import (
    accept_roll,
    request_opposed,
    reroll_dice,
    reveal_roll,
)
from diceledger.domain.session.decide_rolls import request_roll
from diceledger.domain.session.decide_session import (
    end_session,
    join_session,
    open_dispute,
    resolve_dispute,
    reveal_seed,
    start_session,
)
from diceledger.domain.session.events import Event
from diceledger.domain.session.state import SessionState

_DECIDERS: dict[type[Any], Callable[[SessionState, Any, Context], list[Event]]] = {
    cmd.StartSession: start_session,
    cmd.JoinSession: join_session,
    cmd.RequestRoll: request_roll,
    cmd.RequestOpposed: request_opposed,
    cmd.Reroll: reroll_dice,
    cmd.Accept: accept_roll,
    cmd.RevealRoll: reveal_roll,
    cmd.RevealSeed: reveal_seed,
    cmd.EndSession: end_session,
    cmd.OpenDispute: open_dispute,
    cmd.ResolveDispute: resolve_dispute,
}


def decide(state: SessionState, command: cmd.Command, ctx: Context) -> list[Event]:
    """Return the events that ``command`` by ``ctx.actor`` appends, or raise a refusal."""
    return _DECIDERS[type(command)](state, command, ctx)

"""The session aggregate's decision: ``(state, command) -> events``, or a refusal."""

from __future__ import annotations

from typing import assert_never

from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide_followups import (
    accept_roll,
    reroll_dice,
    reveal_roll,
    roll_own_side,
)
from diceledger.domain.session.decide_opposed import request_opposed
from diceledger.domain.session.decide_rolls import request_roll
from diceledger.domain.session.decide_session import (
    end_session,
    join_session,
    open_dispute,
    resolve_dispute,
    reveal_seed,
    start_session,
)
from diceledger.domain.session.decide_sheets import (
    create_character,
    retire_character,
    save_roll,
    set_attribute,
    set_quality,
    set_sheet_rights,
)
from diceledger.domain.session.events import Event
from diceledger.domain.session.state import SessionState


def decide(state: SessionState, command: cmd.Command, ctx: Context) -> list[Event]:
    """Return the events that ``command`` by ``ctx.actor`` appends, or raise a refusal."""
    match command:
        case cmd.StartSession():
            return start_session(state, command, ctx)
        case cmd.JoinSession():
            return join_session(state, command, ctx)
        case cmd.RequestRoll():
            return request_roll(state, command, ctx)
        case cmd.RequestOpposed():
            return request_opposed(state, command, ctx)
        case cmd.Reroll():
            return reroll_dice(state, command, ctx)
        case cmd.RollSide():
            return roll_own_side(state, command, ctx)
        case cmd.Accept():
            return accept_roll(state, command, ctx)
        case cmd.RevealRoll():
            return reveal_roll(state, command, ctx)
        case cmd.RevealSeed():
            return reveal_seed(state, command, ctx)
        case cmd.EndSession():
            return end_session(state, command, ctx)
        case cmd.OpenDispute():
            return open_dispute(state, command, ctx)
        case cmd.ResolveDispute():
            return resolve_dispute(state, command, ctx)
        case cmd.SetSheetRights():
            return set_sheet_rights(state, command, ctx)
        case cmd.CreateCharacter():
            return create_character(state, command, ctx)
        case cmd.SetAttribute():
            return set_attribute(state, command, ctx)
        case cmd.SetQuality():
            return set_quality(state, command, ctx)
        case cmd.SaveRoll():
            return save_roll(state, command, ctx)
        case cmd.RetireCharacter():
            return retire_character(state, command, ctx)
        case _:
            assert_never(command)

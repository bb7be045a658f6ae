"""Rolls: request one, roll one's own side, reroll chosen dice, accept, reveal, read one."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from diceledger.domain.json import JsonObject
from diceledger.domain.session import commands as cmd
from diceledger.infra.app.access import Credential
from diceledger.infra.app.results import RollResult
from diceledger.web.answers import answer
from diceledger.web.auth import Member
from diceledger.web.context import Services, WebServices
from diceledger.web.idempotent import require_key, run_once
from diceledger.web.limits import per_member
from diceledger.web.openapi import (
    BODY,
    COMMAND,
    FAILS,
    INPUT,
    LIMITED,
    MEMBER,
    STORE,
    answers,
    idempotency_key,
)
from diceledger.web.roll_responses import RollAnswer, RolledAnswer
from diceledger.web.schemas import AcceptBody, RerollBody, RollBody, RollId, SideBody

router = APIRouter(
    prefix="/api/v1/sessions/{session_id}/rolls",
    tags=["rolls"],
    responses=answers(FAILS, STORE, MEMBER, INPUT),
)


def roll_json(result: RollResult) -> JsonObject:
    """Return a roll command's answer: the roll as the CLI's --json shows it, and its checkpoint."""
    return {**result.view, "checkpoint": result.checkpoint}


def _draws(request: Request, web: WebServices, member: Credential) -> None:
    require_key(request)  # a request that could never roll is refused as such, not limited
    web.limits.use(per_member("rolls", member), web.settings.rolls_per_minute, "rolls")


@router.post(
    "",
    status_code=201,
    response_model=RolledAnswer,
    responses=answers(BODY, COMMAND, LIMITED),
    openapi_extra=idempotency_key(required=True),
)
def request_roll(
    session_id: str, body: RollBody, member: Member, request: Request, web: Services
) -> Response:
    """Roll: a plain roll, a check, a save or an opposed check (Idempotency-Key required)."""
    _draws(request, web, member)

    def rolled() -> JsonObject:
        command = body.command(member.member)
        return roll_json(web.app.request_roll(member.member, session_id, command))

    return run_once(request, web, member.token_id, body, rolled, status=201, required=True)


@router.get("/{roll_id}", response_model=RollAnswer)
def show_roll(session_id: str, roll_id: RollId, member: Member, web: Services) -> Response:
    """Return one roll as the member may see it."""
    return answer(web.app.roll(member.member, session_id, roll_id).view)


@router.post(
    "/{roll_id}/reroll",
    response_model=RolledAnswer,
    responses=answers(BODY, COMMAND, LIMITED),
    openapi_extra=idempotency_key(required=True),
)
def reroll(
    session_id: str,
    roll_id: RollId,
    body: RerollBody,
    member: Member,
    request: Request,
    web: Services,
) -> Response:
    """Spend rerolls on chosen dice of a roll awaiting them (Idempotency-Key required)."""
    _draws(request, web, member)
    faces = None if body.faces is None else tuple(body.faces)
    command = cmd.Reroll(roll_id, tuple(body.dice), faces)

    def rerolled() -> JsonObject:
        return roll_json(web.app.reroll(member.member, session_id, command))

    return run_once(request, web, member.token_id, body, rerolled, required=True)


@router.post(
    "/{roll_id}/side",
    response_model=RolledAnswer,
    responses=answers(BODY, COMMAND, LIMITED),
    openapi_extra=idempotency_key(required=True),
)
def roll_side(
    session_id: str,
    roll_id: RollId,
    member: Member,
    request: Request,
    web: Services,
    body: SideBody | None = None,
) -> Response:
    """Roll your own side of an opposed check waiting for your dice (Idempotency-Key required).

    With ``faces``, your physical dice typed in (when the session allows them); without,
    the server rolls them.
    """
    _draws(request, web, member)
    faces = None if body is None or body.faces is None else tuple(body.faces)
    turn = None if body is None or body.turn_round is None else cmd.Turn(1, body.turn_round)
    command = cmd.RollSide(roll_id, faces, turn)

    def rolled() -> JsonObject:
        return roll_json(web.app.roll_side(member.member, session_id, command))

    return run_once(request, web, member.token_id, body, rolled, required=True)


@router.post(
    "/{roll_id}/accept",
    response_model=RolledAnswer,
    responses=answers(BODY, COMMAND),
    openapi_extra=idempotency_key(required=False),
)
def accept(
    session_id: str,
    roll_id: RollId,
    member: Member,
    request: Request,
    web: Services,
    body: AcceptBody | None = None,
) -> Response:
    """Accept a roll awaiting rerolls as it stands (of an opposed check: one side's turn)."""
    faces = None if body is None or body.faces is None else tuple(body.faces)

    def accepted() -> JsonObject:
        return roll_json(web.app.accept(member.member, session_id, roll_id, faces))

    return run_once(request, web, member.token_id, body, accepted)


@router.post(
    "/{roll_id}/reveal",
    response_model=RolledAnswer,
    responses=answers(BODY, COMMAND),
    openapi_extra=idempotency_key(required=False),
)
def reveal(
    session_id: str, roll_id: RollId, member: Member, request: Request, web: Services
) -> Response:
    """Show a blind roll to the players (GM)."""

    def revealed() -> JsonObject:
        return roll_json(web.app.reveal_roll(member.member, session_id, roll_id))

    return run_once(request, web, member.token_id, None, revealed)

"""Disputes: any member disputes a roll they can see; a GM reviews and rules."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from diceledger.domain.session import commands as cmd
from diceledger.infra.app.results import DisputeResult
from diceledger.web.answers import answer
from diceledger.web.auth import Member
from diceledger.web.context import Services
from diceledger.web.idempotent import run_once
from diceledger.web.openapi import (
    BODY,
    COMMAND,
    FAILS,
    INPUT,
    MEMBER,
    STORE,
    answers,
    idempotency_key,
)
from diceledger.web.responses import Dispute, Review
from diceledger.web.schemas import DisputeBody, RollId, RulingBody

router = APIRouter(
    prefix="/api/v1/sessions/{session_id}/rolls/{roll_id}",
    tags=["disputes"],
    responses=answers(FAILS, STORE, MEMBER, INPUT),
)


def dispute_json(result: DisputeResult) -> Dispute:
    """Return a dispute's answer: the same fields as the CLI's --json."""
    return Dispute(
        session_id=result.session_id,
        roll_id=result.roll_id,
        by=result.by,
        outcome=result.outcome,
        note=result.note,
        checkpoint=result.checkpoint,
    )


@router.post(
    "/dispute",
    status_code=201,
    response_model=Dispute,
    responses=answers(BODY, COMMAND),
    openapi_extra=idempotency_key(required=False),
)
def open_dispute(
    session_id: str,
    roll_id: RollId,
    body: DisputeBody,
    member: Member,
    request: Request,
    web: Services,
) -> Response:
    """Dispute a roll the member can see."""

    def opened() -> Dispute:
        result = web.app.open_dispute(member.member, session_id, roll_id, body.reason)
        return dispute_json(result)

    return run_once(request, web, member.token_id, body, opened, status=201)


@router.get("/review", response_model=Review)
def review(session_id: str, roll_id: RollId, member: Member, web: Services) -> Response:
    """Return the GM's review of a roll: every die, its provenance and the proofs."""
    return answer(web.app.review(member.member, session_id, roll_id))


@router.post(
    "/ruling",
    response_model=Dispute,
    responses=answers(BODY, COMMAND),
    openapi_extra=idempotency_key(required=False),
)
def rule(
    session_id: str,
    roll_id: RollId,
    body: RulingBody,
    member: Member,
    request: Request,
    web: Services,
) -> Response:
    """Rule on a dispute (GM): uphold the roll or void it."""
    command = cmd.ResolveDispute(roll_id, cmd.Ruling(body.outcome), body.note)

    def ruled() -> Dispute:
        return dispute_json(web.app.resolve_dispute(member.member, session_id, command))

    return run_once(request, web, member.token_id, body, ruled)

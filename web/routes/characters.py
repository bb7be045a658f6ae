"""Characters: list a session's sheets, create one, set its values, retire it, who keeps them."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.responses import Response

from diceledger.domain.errors import InvalidInputError
from diceledger.domain.json import JsonObject
from diceledger.domain.session import commands as cmd
from diceledger.infra.app.access import Credential
from diceledger.web.answers import answer
from diceledger.web.auth import Member
from diceledger.web.context import Services, WebServices
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
from diceledger.web.responses import Characters, SheetChanged
from diceledger.web.sheet_schemas import (
    CharacterName,
    NewCharacter,
    SavedRollBody,
    SheetRightsBody,
    SheetValueBody,
)

router = APIRouter(
    prefix="/api/v1/sessions/{session_id}",
    tags=["characters"],
    responses=answers(FAILS, STORE, MEMBER, INPUT),
)
CHANGED = answers(BODY, COMMAND)
RETRYABLE = idempotency_key(required=False)


def change(
    request: Request,
    web: WebServices,
    member: Credential,
    session_id: str,
    body: BaseModel | None,
    command: cmd.SheetCommand,
    status: int = 200,
) -> Response:
    """Run a sheet command as ``member`` (once per Idempotency-Key); answer what it left."""

    def changed() -> JsonObject:
        return web.app.change_sheet(member.member, session_id, command).view

    return run_once(request, web, member.token_id, body, changed, status=status)


@router.get("/characters", response_model=Characters)
def list_characters(session_id: str, member: Member, web: Services) -> Response:
    """Return every character of the session and who keeps the sheets; members see all."""
    return answer(web.app.characters(session_id).view)


@router.post(
    "/characters",
    status_code=201,
    response_model=SheetChanged,
    responses=CHANGED,
    openapi_extra=RETRYABLE,
)
def create_character(
    session_id: str, body: NewCharacter, member: Member, request: Request, web: Services
) -> Response:
    """Create the caller's character, another member's (GM), or an NPC (GM)."""
    return change(request, web, member, session_id, body, body.command(member.member), 201)


@router.post(
    "/characters/{character}/attributes",
    response_model=SheetChanged,
    responses=CHANGED,
    openapi_extra=RETRYABLE,
)
def set_attribute(
    session_id: str,
    character: CharacterName,
    body: SheetValueBody,
    member: Member,
    request: Request,
    web: Services,
) -> Response:
    """Set an attribute's MOD: on one's own character (unless the GMs keep sheets), or a GM's."""
    command = cmd.SetAttribute(character, body.name, body.value, body.label)
    return change(request, web, member, session_id, body, command)


@router.post(
    "/characters/{character}/qualities",
    response_model=SheetChanged,
    responses=CHANGED,
    openapi_extra=RETRYABLE,
)
def set_quality(
    session_id: str,
    character: CharacterName,
    body: SheetValueBody,
    member: Member,
    request: Request,
    web: Services,
) -> Response:
    """Set a Quality's value, as for an attribute; a Quality takes no label."""
    if body.label is not None:
        raise InvalidInputError("a Quality has a value, not a label")
    command = cmd.SetQuality(character, body.name, body.value)
    return change(request, web, member, session_id, body, command)


@router.post(
    "/characters/{character}/saved-rolls",
    response_model=SheetChanged,
    responses=CHANGED,
    openapi_extra=RETRYABLE,
)
def save_roll(
    session_id: str,
    character: CharacterName,
    body: SavedRollBody,
    member: Member,
    request: Request,
    web: Services,
) -> Response:
    """Keep a named roll on a character's sheet, with the same rights as its values."""
    return change(request, web, member, session_id, body, body.command(character))


@router.post(
    "/characters/{character}/retire",
    response_model=SheetChanged,
    responses=CHANGED,
    openapi_extra=RETRYABLE,
)
def retire_character(
    session_id: str, character: CharacterName, member: Member, request: Request, web: Services
) -> Response:
    """Take a character out of play; its sheet stays in the log."""
    return change(request, web, member, session_id, None, cmd.RetireCharacter(character))


@router.post("/sheets", response_model=SheetChanged, responses=CHANGED, openapi_extra=RETRYABLE)
def set_sheet_rights(
    session_id: str, body: SheetRightsBody, member: Member, request: Request, web: Services
) -> Response:
    """Choose who may change a player character's values (GM): its player, or GMs only."""
    return change(request, web, member, session_id, body, cmd.SetSheetRights(body.sheets))

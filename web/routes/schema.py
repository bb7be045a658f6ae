"""The session log's published format: its JSON Schema, for anyone."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from diceledger.infra.app.event_schema import MEDIA_TYPE, events_schema_text
from diceledger.web.openapi import FAILS, JsonSchemaAnswer, also_answers, answers

router = APIRouter(tags=["schema"])


@router.get(
    "/api/v1/schema/events",
    response_class=JsonSchemaAnswer,
    responses={
        **answers(FAILS),
        **also_answers(MEDIA_TYPE, {"type": "object", "required": ["$schema", "type"]}),
    },
)
def event_schema() -> Response:
    """Return the JSON Schema of an exported event, every event type and version included."""
    return Response(events_schema_text(), media_type=MEDIA_TYPE)

"""JSON answers: the documents of the application's results, as they are or as typed models."""

from __future__ import annotations

import json
from typing import cast

from pydantic import BaseModel
from starlette.responses import Response

from diceledger.domain.json import JsonValue

JSON = "application/json"


def answer(document: JsonValue, status: int = 200) -> Response:
    """Return ``document`` as a JSON response (UTF-8, not ASCII-escaped)."""
    return Response(json.dumps(document, ensure_ascii=False), status_code=status, media_type=JSON)


def document_of(model: BaseModel) -> JsonValue:
    """Return a typed answer as JSON data: fields as the API spells them, unset ones left out."""
    return cast(JsonValue, model.model_dump(mode="json", by_alias=True, exclude_unset=True))


def typed(model: BaseModel, status: int = 200) -> Response:
    """Return a typed answer (web/responses.py) as the JSON response."""
    return answer(document_of(model), status)

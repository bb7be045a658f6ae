"""JSON answers: the documents of the application's results, as they are."""

from __future__ import annotations

import json

from starlette.responses import Response

from diceledger.domain.json import JsonValue

JSON = "application/json"


def answer(document: JsonValue, status: int = 200) -> Response:
    """Return ``document`` as a JSON response (UTF-8, not ASCII-escaped)."""
    return Response(json.dumps(document, ensure_ascii=False), status_code=status, media_type=JSON)

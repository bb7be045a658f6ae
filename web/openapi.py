"""What /openapi.json says that FastAPI cannot see: each route's problem answers and headers.

A route declares the kinds of refusal it can meet (``answers(MEMBER, COMMAND)``); each
becomes its statuses, described as application/problem+json with one shared Problem
schema whose ``type`` lists every problem type. The POSTs that take an Idempotency-Key
declare it, required where it is (``idempotency_key``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field
from pydantic.config import JsonDict, JsonValue
from pydantic.json_schema import models_json_schema
from starlette.responses import Response

from diceledger.infra.app.event_schema import MEDIA_TYPE as SCHEMA_MEDIA_TYPE
from diceledger.infra.app.idempotency import MAX_KEY_LENGTH
from diceledger.web.problems import (
    BAD_REQUEST,
    FALLBACK,
    PROBLEM_JSON,
    PROBLEMS,
    RATE_LIMITED,
    TOO_LARGE,
    VALIDATION,
    Problem,
)
from diceledger.web.responses import ReplayLine
from diceledger.web.roll_responses import RollAnswer, Shape

# The problems the app answers outside the error tree: an unknown path or method.
HTTP_PROBLEMS = (Problem(404, "http", "Not Found"), Problem(405, "http", "Method Not Allowed"))
ALL_PROBLEMS = (
    *(problem for _, problem in PROBLEMS),
    FALLBACK,
    BAD_REQUEST,
    TOO_LARGE,
    RATE_LIMITED,
    VALIDATION,
    *HTTP_PROBLEMS,
)
SCHEMA_NAME = "Problem"
_TYPE_NAMES: list[JsonValue] = [*sorted({problem.type for problem in ALL_PROBLEMS})]
TYPES: JsonDict = {"enum": _TYPE_NAMES}

# The kinds of refusal, as the statuses they are answered with.
FAILS = (500,)  # every route: a bug, a broken dice source, a log that fails its checks
STORE = (503,)  # a route that reads or writes the store (unreachable, a busy session)
BUSY = (503,)  # a route whose costly work runs one at a time (Retry-After)
MEMBER = (401, 403, 404)  # a route a member's token opens: none, not allowed, not known
INPUT = (422,)  # a route that takes path or query values
BODY = (400, 413, 422)  # a route that takes a JSON body (not JSON, too large, invalid)
COMMAND = (409,)  # a command on a session: refused as it stands, or a retry in progress
LIMITED = (429,)  # a route with a rate limit (Retry-After)


class ProblemDocument(BaseModel):
    """An error, as application/problem+json (RFC 9457)."""

    type: str = Field(description="The kind of error, stable", json_schema_extra=TYPES)
    title: str = Field(description="The kind of error, for a person")
    status: int = Field(description="The HTTP status, repeated")
    detail: str = Field(description="One line for a person; hidden characters escaped")
    instance: str | None = Field(default=None, description="The path of the request")
    request_id: str | None = Field(
        default=None, description="Of a server failure (5xx): the id its log line names"
    )


def answers(*kinds: tuple[int, ...]) -> dict[int | str, dict[str, Any]]:
    """Return the ``responses`` of a route that can meet these kinds of refusal."""
    statuses = sorted({status for kind in kinds for status in kind})
    return {status: _answer(status) for status in statuses}


def _answer(status: int) -> dict[str, Any]:
    types = sorted({p.type for p in ALL_PROBLEMS if p.status == status})
    schema = {"$ref": f"#/components/schemas/{SCHEMA_NAME}"}
    return {"description": ", ".join(types), "content": {PROBLEM_JSON: {"schema": schema}}}


def idempotency_key(*, required: bool) -> dict[str, Any]:
    """Return the ``openapi_extra`` of a POST that takes an Idempotency-Key header."""
    why = "Required: a retry with the same key answers the first answer, never rolls again."
    header = {
        "name": "Idempotency-Key",
        "in": "header",
        "required": required,
        "description": why if required else "A retry with the same key gets the first answer.",
        "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_KEY_LENGTH,
            "pattern": "^[ -~]+$",  # printable ASCII
        },
    }
    return {"parameters": [header]}


class JsonLinesAnswer(Response):
    """Tells /openapi.json that a route answers JSON Lines (the route builds its answer)."""

    media_type = "application/jsonl"


class JsonSchemaAnswer(Response):
    """Tells /openapi.json that a route answers a JSON Schema (the route builds its answer)."""

    media_type = SCHEMA_MEDIA_TYPE


def also_answers(media_type: str, schema: dict[str, Any]) -> dict[int | str, dict[str, Any]]:
    """Return the ``responses`` of a route whose success may come as ``media_type`` too."""
    return {200: {"content": {media_type: {"schema": schema}}}}


class LiveEvent(Shape):
    """The ``data`` of one event of the live stream (``id``: its stream version)."""

    line: ReplayLine = Field(description="The event's timeline line, as GET .../replay has it")
    roll: RollAnswer | None = Field(description="The event's roll as the member sees it now")


class LiveCheckpoint(Shape):
    """The ``data`` of an ``event: checkpoint``: a new signed checkpoint (no ``id``)."""

    size: int = Field(ge=0, description="The events of versions 1 to size come before it")
    checkpoint: str = Field(description="The signed note, as GET .../checkpoint has it")


LIVE_DOCS = "docs/live.md"
SCHEMAS = "#/components/schemas/"


def stream_answer() -> dict[int | str, dict[str, Any]]:
    """Return the ``responses`` of the live stream: the schema of each of its events.

    As OpenAPI 3.1 reads a text/event-stream schema, it describes one event: its fields
    as the SSE parser hands them over, its ``data`` JSON of one of the two shapes.
    """
    data = {"oneOf": [{"$ref": SCHEMAS + model.__name__} for model in (LiveEvent, LiveCheckpoint)]}
    event = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^[0-9]+$", "description": "Stream version"},
            "event": {"type": "string", "description": "An event type, or checkpoint"},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": data,
            },
            "retry": {"type": "integer", "minimum": 0},
        },
    }
    return {
        200: {
            "description": f"Server-Sent Events, resumable by Last-Event-ID ({LIVE_DOCS})",
            "content": {"text/event-stream": {"schema": event}},
        }
    }


BEARER = "bearer"
SECURITY_SCHEMES = {
    BEARER: {
        "type": "http",
        "scheme": "bearer",
        "description": "A member's token (shown once on create or join). A browser sends it "
        "instead in the session's HttpOnly cookie, dl_ and the session id (docs/security.md).",
    }
}


def operation_id(route: APIRoute) -> str:
    """Name an operation by its route's function (``request_roll``): what a generated
    client calls it. FastAPI warns of a name used twice, which the suite makes an error."""
    return route.name


def with_problem_schema(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """Return the app's openapi() with what FastAPI cannot see added.

    The Problem schema the answers refer to, the live stream's data schemas, and the
    bearer scheme on every route a member's token opens (a session's, that can answer 401).
    """
    generate = app.openapi

    def document() -> dict[str, Any]:
        if app.openapi_schema is None:
            built = generate()
            components = built.setdefault("components", {})
            schemas = components.setdefault("schemas", {})
            schemas[SCHEMA_NAME] = ProblemDocument.model_json_schema()
            schemas.pop("HTTPValidationError", None)  # every 422 is a Problem here
            schemas.pop("ValidationError", None)
            schemas.update(_schemas_of(LiveEvent, LiveCheckpoint))
            components["securitySchemes"] = SECURITY_SCHEMES
            for path, item in built["paths"].items():
                for operation in item.values():
                    if "{session_id}" in path and "401" in operation["responses"]:
                        operation["security"] = [{BEARER: []}]
        return app.openapi_schema or {}

    return document


def _schemas_of(*models: type[BaseModel]) -> dict[str, Any]:
    named, defs = models_json_schema(
        [(model, "serialization") for model in models], ref_template=SCHEMAS + "{model}"
    )
    found: dict[str, Any] = defs.get("$defs", {})
    return found

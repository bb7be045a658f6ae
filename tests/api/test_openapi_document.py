"""/openapi.json declares what the server answers: problems, their types, Idempotency-Key."""

from __future__ import annotations

from typing import Any

from diceledger.web.problems import PROBLEMS
from tests.api.conftest import Api

ROLLS = "/api/v1/sessions/{session_id}/rolls"


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def idempotency_key(operation: dict[str, Any]) -> dict[str, Any] | None:
    found = [p for p in operation.get("parameters", []) if p["name"] == "Idempotency-Key"]
    return found[0] if found else None


def test_every_error_answer_is_a_problem_document_of_a_known_type(api: Api) -> None:
    document: dict[str, Any] = api.get("/openapi.json").json()
    problem_content = {
        "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
    }
    strays = [
        f"{method} {path} {status}"
        for method, path, operation in operations(document)
        for status, response in operation["responses"].items()
        if int(status) >= 400 and response.get("content") != problem_content
    ]
    assert strays == []
    problem = document["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "detail"}
    assert {p.type for _, p in PROBLEMS} <= set(problem["properties"]["type"]["enum"])
    assert "HTTPValidationError" not in document["components"]["schemas"]


def test_every_route_declares_that_it_can_fail(api: Api) -> None:
    document: dict[str, Any] = api.get("/openapi.json").json()
    silent = [f"{m} {p}" for m, p, op in operations(document) if "500" not in op["responses"]]
    assert silent == []


def test_the_idempotency_key_is_declared_and_required_where_dice_are_drawn(api: Api) -> None:
    document: dict[str, Any] = api.get("/openapi.json").json()
    keys = {(m, p): idempotency_key(op) for m, p, op in operations(document)}
    required = {route for route, key in keys.items() if key is not None and key["required"]}
    assert required == {
        ("POST", ROLLS),
        ("POST", ROLLS + "/{roll_id}/reroll"),
        ("POST", ROLLS + "/{roll_id}/side"),
    }
    assert keys[("POST", ROLLS + "/{roll_id}/accept")] is not None
    assert all(key is None for (method, _), key in keys.items() if method == "GET")
    schema = keys[("POST", ROLLS)]
    assert schema is not None and schema["schema"]["maxLength"] == 200

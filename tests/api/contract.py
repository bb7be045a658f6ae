"""Hold an answer to what /openapi.json says its route answers: status, media type, schema."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema

JsonDocument = dict[str, Any]


def operation_of(document: JsonDocument, method: str, path: str) -> JsonDocument:
    """Return the operation of the document that serves ``method path`` (a concrete path)."""
    for template, item in document["paths"].items():
        pattern = re.sub(r"\{[^}]+\}", "[^/]+", template)
        if re.fullmatch(pattern, path) and method.lower() in item:
            found: JsonDocument = item[method.lower()]
            return found
    raise AssertionError(f"/openapi.json has no operation for {method} {path}")


def success_schemas(document: JsonDocument) -> dict[str, JsonDocument]:
    """Return each 2xx answer's schema of each route, keyed 'METHOD path status media'."""
    return {
        f"{method.upper()} {path} {status} {media}": content.get("schema", {})
        for path, item in document["paths"].items()
        for method, operation in item.items()
        for status, response in operation["responses"].items()
        if status.startswith("2")
        for media, content in response.get("content", {}).items()
    }


def check_answer(
    document: JsonDocument, method: str, path: str, status: int, media: str, body: bytes
) -> None:
    """Fail unless the document declares this status and media type, and the body fits."""
    operation = operation_of(document, method, path)
    declared = operation["responses"].get(str(status))
    assert declared is not None, f"{method} {path}: {status} is not declared"
    bare = media.split(";")[0].strip()
    content = declared.get("content", {})
    assert bare in content, f"{method} {path} {status}: {bare} is not declared ({list(content)})"
    if bare.endswith("json") and not bare.endswith("jsonl"):
        schema = {**content[bare]["schema"], "components": document["components"]}
        jsonschema.validate(json.loads(body), schema, cls=jsonschema.Draft202012Validator)

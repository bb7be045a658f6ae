"""The session log's JSON Schema (draft 2020-12), generated from the event classes.

Each event type's ``data`` is a frozen dataclass; walking its fields gives the schema:
``str``, ``int`` and ``bool`` become JSON types, ``X | None`` admits null, ``tuple[X, ...]``
an array, a nested record (``Amount``, ``CheckSide``, ``DieRecord``) a ``$ref`` to its
definition. A field without a default is required; one with a default may be left out by a
writer, and the reader assumes the default. Words and closed sets come from
``domain.session.event_docs``; older schema versions that upcasters still read are described
by dataclasses kept beside their upcasters and passed in here.

A fingerprint is the SHA-256 of one event version's schema with its words removed, so a
changed field, type or constraint changes it and a reworded description does not.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import types
import typing
from collections.abc import Mapping
from enum import Enum

from diceledger.domain.hashchain import canonical_json
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.session import event_docs
from diceledger.domain.session.event_docs import FieldDoc

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_SCALARS: dict[type, str] = {str: "string", int: "integer", bool: "boolean", type(None): "null"}
# Keywords that only explain; a fingerprint leaves them out.
_WORDS = frozenset({"title", "description", "$comment", "examples"})
# Keywords whose value is a map of names to schemas, a schema, or a list of schemas.
_SCHEMA_MAPS = frozenset({"properties", "$defs"})
_SCHEMAS = frozenset({"items", "if", "then", "else", "not"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf"})


def def_name(event_type: str, version: int) -> str:
    """Return the ``$defs`` key of one event type's data at one schema version."""
    return f"{event_type}.v{version}"


class _Walker:
    """Builds object schemas for dataclasses, collecting nested records as definitions."""

    def __init__(self) -> None:
        self.defs: dict[str, JsonObject] = {}

    def record(self, cls: type, docs: Mapping[str, FieldDoc]) -> JsonObject:
        properties: dict[str, JsonValue] = {}
        required: list[JsonValue] = []
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            doc = docs.get(field.name)
            if doc is None:
                raise TypeError(f"{cls.__name__}.{field.name} has no description in event_docs")
            schema = self.value(hints[field.name], doc)
            schema["description"] = doc.text
            if field.default is dataclasses.MISSING:
                required.append(field.name)
            else:
                schema["default"] = _json_default(field.default)
            properties[field.name] = schema
        unknown = set(docs) - {field.name for field in dataclasses.fields(cls)}
        if unknown:
            raise TypeError(f"event_docs describes fields {sorted(unknown)} {cls.__name__} lacks")
        return {
            "type": "object",
            "description": inspect.cleandoc(cls.__doc__ or cls.__name__),
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }

    def value(self, hint: object, doc: FieldDoc) -> JsonObject:
        origin = typing.get_origin(hint)
        if origin in (types.UnionType, typing.Union):
            options = typing.get_args(hint)
            nullable = type(None) in options
            rest = [option for option in options if option is not type(None)]
            if len(rest) != 1:
                raise TypeError(f"only X | None unions are supported, not {hint}")
            inner = self.value(rest[0], doc)
            if not nullable:
                return inner
            if isinstance(inner.get("type"), str):
                return _nullable_scalar(inner)
            return {"anyOf": [inner, {"type": "null"}]}
        if origin is tuple:
            item, ellipsis = typing.get_args(hint)
            if ellipsis is not Ellipsis:
                raise TypeError(f"only tuple[X, ...] is supported, not {hint}")
            return {"type": "array", "items": self.value(item, FieldDoc(""))}
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            name = hint.__name__
            if name not in self.defs:
                self.defs[name] = {}  # claimed first: a record that nests itself ends here
                self.defs[name] = self.record(hint, event_docs.RECORDS[name])
            return {"$ref": f"#/$defs/{name}"}
        if isinstance(hint, type) and issubclass(hint, Enum):
            return {"type": "string", "enum": [member.value for member in hint]}
        if isinstance(hint, type) and hint in _SCALARS:
            return _constrained({"type": _SCALARS[hint]}, doc)
        raise TypeError(f"no JSON Schema for the field type {hint}")


def _constrained(schema: JsonObject, doc: FieldDoc) -> JsonObject:
    if doc.choices:
        schema["enum"] = list(doc.choices)
    if doc.minimum is not None:
        schema["minimum"] = doc.minimum
    if doc.maximum is not None:
        schema["maximum"] = doc.maximum
    if doc.pattern is not None:
        schema["pattern"] = doc.pattern
    return schema


def _nullable_scalar(schema: JsonObject) -> JsonObject:
    nullable = {**schema, "type": [schema["type"], "null"]}
    choices = schema.get("enum")
    if isinstance(choices, list):
        nullable["enum"] = [*choices, None]
    return nullable


def _json_default(value: object) -> JsonValue:
    if isinstance(value, tuple):
        return [_json_default(item) for item in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(f"no JSON form for the default {value!r}")


def _envelope(event_types: list[str]) -> JsonObject:
    docs = event_docs.ENVELOPE
    types_of: dict[str, JsonObject] = {
        "position": {"type": "integer"},
        "event_id": {"type": "string"},
        "stream_id": {"type": "string", "minLength": 1, "maxLength": 200},
        "stream_version": {"type": "integer"},
        "event_type": {"type": "string", "enum": list[JsonValue](event_types)},
        "schema_version": {"type": "integer"},
        "data": {"type": "object"},
        "meta": {"type": "object"},
        "recorded_at": {"type": "string"},
        "prev_hash": {"type": "string"},
        "hash": {"type": "string"},
    }
    properties: dict[str, JsonValue] = {
        name: {**_constrained(schema, docs[name]), "description": docs[name].text}
        for name, schema in types_of.items()
    }
    return {
        "type": "object",
        "properties": properties,
        "required": list[JsonValue](types_of),
        "additionalProperties": False,
    }


def _dispatch(versions: Mapping[str, list[int]]) -> list[JsonValue]:
    rules: list[JsonValue] = []
    for event_type, known in versions.items():
        rules.append(
            {
                "if": _matches(event_type),
                "then": {"properties": {"schema_version": {"enum": list[JsonValue](known)}}},
            }
        )
        for version in known:
            data: JsonObject = {"$ref": f"#/$defs/{def_name(event_type, version)}"}
            rules.append(
                {"if": _matches(event_type, version), "then": {"properties": {"data": data}}}
            )
    return rules


def _matches(event_type: str, version: int | None = None) -> JsonObject:
    properties: dict[str, JsonValue] = {"event_type": {"const": event_type}}
    required: list[JsonValue] = ["event_type"]
    if version is not None:
        properties["schema_version"] = {"const": version}
        required.append("schema_version")
    return {"properties": properties, "required": required}


def events_document(
    current: Mapping[str, type], older: Mapping[tuple[str, int], type]
) -> JsonObject:
    """Return the schema of one export line, with every event type's data at every version.

    ``current`` maps each event type to its class (whose ``schema_version`` is the current
    version); ``older`` maps (event type, version) to a dataclass describing that older
    version's data, for every version an upcaster still reads.
    """
    walker = _Walker()
    data_defs: dict[str, JsonObject] = {}
    versions: dict[str, list[int]] = {}
    shapes = {(name, _version_of(cls)): cls for name, cls in current.items()} | dict(older)
    for (event_type, version), cls in sorted(shapes.items()):
        if event_type not in current:
            raise TypeError(f"an older shape of {event_type}, which is not an event type")
        docs = event_docs.EVENTS[event_type]
        known = {f.name for f in dataclasses.fields(cls)}
        data_defs[def_name(event_type, version)] = walker.record(
            cls, {name: doc for name, doc in docs.items() if name in known}
        )
        versions.setdefault(event_type, []).append(version)
    document: JsonObject = {
        "$schema": DRAFT,
        "title": "diceledger session log: one exported event",
        "description": (
            "One line of a diceledger export (JSON Lines); the same object, without position "
            "and hash, is what an event's hash covers. data takes the shape of its event_type "
            "at its schema_version, defined under $defs as <EventType>.v<version>."
        ),
        **_envelope(sorted(current)),
        "allOf": _dispatch(versions),
        "$defs": {**dict(sorted(walker.defs.items())), **data_defs},
    }
    return document


def _version_of(cls: type) -> int:
    version = getattr(cls, "schema_version", None)
    if not isinstance(version, int):
        raise TypeError(f"{cls.__name__} has no schema_version")
    return version


def data_schema(document: JsonObject, event_type: str, version: int) -> JsonObject:
    """Return one event version's data schema on its own: its definition and the records it uses."""
    defs = document["$defs"]
    assert isinstance(defs, dict)
    root = defs[def_name(event_type, version)]
    assert isinstance(root, dict)
    used: dict[str, JsonValue] = {}
    pending = [root]
    while pending:
        for name in sorted(_refs(pending.pop())):
            if name not in used:
                used[name] = defs[name]
                target = defs[name]
                assert isinstance(target, dict)
                pending.append(target)
    return {"$schema": DRAFT, **root, "$defs": dict(sorted(used.items()))}


def _refs(schema: JsonValue) -> set[str]:
    if isinstance(schema, dict):
        found = set()
        ref = schema.get("$ref")
        if isinstance(ref, str):
            found.add(ref.removeprefix("#/$defs/"))
        for value in schema.values():
            found |= _refs(value)
        return found
    if isinstance(schema, list):
        return set().union(*(_refs(item) for item in schema))
    return set()


def without_words(schema: JsonValue) -> JsonValue:
    """Return a schema without its explanatory keywords (titles, descriptions)."""
    if not isinstance(schema, dict):
        return schema
    kept: JsonObject = {}
    for key, value in schema.items():
        if key in _WORDS:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            kept[key] = {name: without_words(item) for name, item in value.items()}
        elif key in _SCHEMAS:
            kept[key] = without_words(value)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            kept[key] = [without_words(item) for item in value]
        else:
            kept[key] = value
    return kept


def fingerprints(document: JsonObject) -> dict[str, str]:
    """Return "EventType@version" -> SHA-256 of that version's schema without its words."""
    defs = document["$defs"]
    assert isinstance(defs, dict)
    prints: dict[str, str] = {}
    for key in defs:
        event_type, dot, version = key.rpartition(".v")
        if not dot:
            continue  # a nested record: part of the fingerprint of each event that uses it
        schema = without_words(data_schema(document, event_type, int(version)))
        prints[f"{event_type}@{version}"] = hashlib.sha256(canonical_json(schema)).hexdigest()
    return dict(sorted(prints.items()))

"""Typed steps into JSON documents, for tests that read what the package wrote."""

from __future__ import annotations

from diceledger.domain.json import JsonObject, JsonValue


def at(document: JsonValue, *path: str | int) -> JsonValue:
    """Return the value at ``path`` in ``document``: each step a key of an object or an
    index of an array, failing the test where the document has no such place."""
    value = document
    for step in path:
        if isinstance(step, str):
            assert isinstance(value, dict), f"{value!r} is no object for {step!r}"
            value = value[step]
        else:
            assert isinstance(value, list), f"{value!r} is no array for [{step}]"
            value = value[step]
    return value


def object_at(document: JsonValue, *path: str | int) -> JsonObject:
    """Return the object at ``path`` in ``document``."""
    value = at(document, *path)
    assert isinstance(value, dict), f"{value!r} is no object"
    return value


def array_at(document: JsonValue, *path: str | int) -> list[JsonValue]:
    """Return the array at ``path`` in ``document``."""
    value = at(document, *path)
    assert isinstance(value, list), f"{value!r} is no array"
    return value


def int_at(document: JsonValue, *path: str | int) -> int:
    """Return the integer at ``path`` in ``document`` (a bool is no integer here)."""
    value = at(document, *path)
    assert isinstance(value, int) and not isinstance(value, bool), f"{value!r} is no integer"
    return value


def number_at(document: JsonValue, *path: str | int) -> float:
    """Return the number at ``path`` in ``document``, whole or not (a bool is no number)."""
    value = at(document, *path)
    assert isinstance(value, int | float) and not isinstance(value, bool), f"{value!r} is no number"
    return value

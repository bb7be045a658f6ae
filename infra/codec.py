"""The one place where session events become JSON data and back, upcasting old versions.

Events are frozen dataclasses whose fields are JSON values, tuples, or the small
records of ``domain.session.events``; the type hints say how to rebuild each field.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from diceledger.domain.errors import CorruptLogError
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.domain.session import events as ev

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class SessionStartedV1:
    """A session was opened (version 1: no way to forbid typed-in dice)."""

    session_id: str
    title: str
    gm: str


def _session_started_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 had no way to forbid typed-in dice: every session allowed them.
    return {**data, "manual_dice_allowed": True}


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("SessionStarted", 1): _session_started_v1_to_v2,
}
# The data each upcaster reads, for the published schema (domain.event_schema): an
# older version is described here, beside the code that still reads it.
OLDER_SHAPES: dict[tuple[str, int], type] = {
    ("SessionStarted", 1): SessionStartedV1,
}


def to_data(value: Any) -> Any:
    """Return the JSON form of an event or of any value inside one."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_data(item) for item in value]
    return value


def new_event(event: ev.Event, event_id: str, meta: dict[str, Any]) -> NewEvent:
    """Return the envelope that appends ``event``."""
    name = type(event).__name__
    return NewEvent(event_id, name, to_data(event), type(event).schema_version, meta)


def from_record(record: RecordedEvent) -> ev.Event:
    """Return the domain event of a recorded one, upcasting an older schema version."""
    return decode(record.event_type, record.schema_version, record.data)


def decode(event_type: str, version: int, data: dict[str, Any]) -> ev.Event:
    """Return the event of type ``event_type`` stored at schema ``version``."""
    cls = ev.EVENT_TYPES.get(event_type)
    if cls is None:
        raise CorruptLogError(f"unknown event type '{event_type}'")
    while version < cls.schema_version:
        upcast = UPCASTERS.get((event_type, version))
        if upcast is None:
            raise CorruptLogError(f"no upcaster for {event_type} version {version}")
        data, version = upcast(data), version + 1
    if version != cls.schema_version:
        raise CorruptLogError(f"{event_type} version {version} is newer than this release")
    try:
        event = _build(cls, data)
    except (TypeError, KeyError, ValueError) as error:
        raise CorruptLogError(f"{event_type} data does not fit the event: {error}") from None
    assert isinstance(event, ev.Event)
    return event


Converter = Callable[[Any], Any]


@cache
def _plan(cls: type) -> tuple[frozenset[str], tuple[tuple[str, Converter], ...]]:
    # Worked out once per class: which fields need rebuilding from JSON, and how.
    hints = typing.get_type_hints(cls, vars(ev))
    names = frozenset(f.name for f in dataclasses.fields(cls))
    converters = ((name, _converter(hints[name])) for name in sorted(names))
    return names, tuple((name, c) for name, c in converters if c is not _identity)


def _identity(value: Any) -> Any:
    return value


def _converter(hint: Any) -> Converter:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        inner = _converter(next(a for a in typing.get_args(hint) if a is not type(None)))
        if inner is _identity:
            return _identity
        return lambda value: None if value is None else inner(value)
    if origin is tuple:
        item = _converter(typing.get_args(hint)[0])
        if item is _identity:
            return tuple
        return lambda value: tuple(item(v) for v in value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return lambda value: _build(hint, value)
    return _identity


def _build(cls: type, data: dict[str, Any]) -> Any:
    names, converters = _plan(cls)
    unknown = data.keys() - names
    if unknown:
        raise ValueError(f"unexpected fields {sorted(unknown)}")
    values = dict(data)
    for name, convert in converters:
        if name in values:
            values[name] = convert(values[name])
    return cls(**values)

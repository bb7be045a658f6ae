"""The one place where session events become JSON data and back, upcasting old versions.

Events are frozen dataclasses of ``domain.session.events`` whose fields are JSON values,
tuples, or small nested records; msgspec encodes them and decodes them strictly. Strict
means what the log promises: an object with no key the event lacks, every field exactly
of its type (JSON true is no integer, 1 no boolean), arrays for tuples. msgspec refuses
unknown keys only for its own structs, so each event class is mirrored once, from its
type hints, as a struct that forbids them (``_checked``); data is checked against that
mirror and then built as the domain's dataclass, both steps in msgspec's C code.
"""

from __future__ import annotations

import dataclasses
import operator
import types
import typing
from functools import cache, reduce
from typing import Any

import msgspec

from diceledger.domain.errors import CorruptLogError
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.domain.session import events as ev
from diceledger.infra.codec.old_versions import UPCASTERS

_ENCODER = msgspec.json.Encoder()
_PLAIN = msgspec.json.Decoder()  # JSON text to plain dicts and lists


def to_data(event: ev.Event) -> dict[str, Any]:
    """Return the JSON data of an event: fields in declaration order, tuples as lists."""
    data: dict[str, Any] = _PLAIN.decode(_ENCODER.encode(event))
    return data


def new_event(event: ev.Event, event_id: str, meta: dict[str, Any]) -> NewEvent:
    """Return the envelope that appends ``event``."""
    name = type(event).__name__
    return NewEvent(event_id, name, to_data(event), type(event).schema_version, meta)


def from_record(record: RecordedEvent) -> ev.Event:
    """Return the domain event of a recorded one, upcasting an older schema version."""
    return decode(record.event_type, record.schema_version, record.data)


def decode(event_type: str, version: int, data: dict[str, Any]) -> ev.Event:
    """Return the event of type ``event_type`` stored at schema ``version``."""
    cls, data = upcast(event_type, version, data)
    try:
        checked = msgspec.convert(data, _checked(cls))
    except msgspec.ValidationError as error:
        raise CorruptLogError(f"{event_type} data does not fit the event: {error}") from None
    event: object = msgspec.convert(checked, cls, from_attributes=True)
    assert isinstance(event, ev.Event)
    return event


def upcast(event_type: str, version: int, data: dict[str, Any]) -> tuple[type, dict[str, Any]]:
    """Return the event class and its data brought up to the current schema version."""
    cls = ev.EVENT_TYPES.get(event_type)
    if cls is None:
        raise CorruptLogError(f"unknown event type '{event_type}'")
    while version < cls.schema_version:
        step = UPCASTERS.get((event_type, version))
        if step is None:
            raise CorruptLogError(f"no upcaster for {event_type} version {version}")
        data, version = step(data), version + 1
    if version != cls.schema_version:
        raise CorruptLogError(f"{event_type} version {version} is newer than this release")
    return cls, data


@cache
def _checked(hint: Any) -> Any:
    """Return the type data is checked against: a record as a struct with no unknown key."""
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return reduce(operator.or_, map(_checked, typing.get_args(hint)))
    if origin is tuple:
        return tuple[_checked(typing.get_args(hint)[0]), ...]  # type: ignore[misc]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint, vars(ev))
        fields = [
            (f.name, _checked(hints[f.name]))
            if f.default is dataclasses.MISSING
            else (f.name, _checked(hints[f.name]), f.default)
            for f in dataclasses.fields(hint)
        ]
        return msgspec.defstruct(hint.__name__, fields, forbid_unknown_fields=True, frozen=True)
    if hint in (int, str, bool, type(None)):
        return hint
    raise AssertionError(f"no JSON form for {hint!r}")

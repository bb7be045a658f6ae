"""The codec's decoding written out by hand: the oracle its msgspec decoders are held to.

Each field is checked against its type hint one by one: an object with no unknown key,
every value exactly of its type (a bool is no int), lists for tuples, nested records
rebuilt the same way. Production decodes with ``diceledger.infra.codec.events``; this is slower
and kept only so a property test can say both accept and build exactly the same events.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any

from diceledger.domain.errors import CorruptLogError
from diceledger.domain.session import events as ev
from diceledger.infra.codec.old_versions import UPCASTERS


def decode_by_hand(event_type: str, version: int, data: dict[str, Any]) -> ev.Event:
    """Decode as ``infra.codec.events.decode`` does; CorruptLogError names what does not fit."""
    cls = ev.EVENT_TYPES.get(event_type)
    if cls is None:
        raise CorruptLogError(f"unknown event type '{event_type}'")
    while version < cls.schema_version:
        data, version = UPCASTERS[(event_type, version)](data), version + 1
    try:
        event = _build(cls, data)
    except (TypeError, KeyError, ValueError, AttributeError) as error:
        raise CorruptLogError(f"{event_type} data does not fit the event: {error}") from None
    assert isinstance(event, ev.Event)
    return event


Converter = Callable[[Any], Any]


@cache
def _plan(cls: type) -> tuple[frozenset[str], tuple[tuple[str, Converter], ...]]:
    # Worked out once per class: how each field is checked and rebuilt from JSON.
    hints = typing.get_type_hints(cls, vars(ev))
    names = frozenset(f.name for f in dataclasses.fields(cls))
    return names, tuple((name, _converter(hints[name])) for name in sorted(names))


def _exactly(kind: type) -> Converter:
    # bool is an int to Python, not to the log: each field holds exactly its own type.
    def check(value: Any) -> Any:
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return check


def _converter(hint: Any) -> Converter:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        inner = _converter(next(a for a in typing.get_args(hint) if a is not type(None)))
        return lambda value: None if value is None else inner(value)
    if origin is tuple:
        item = _converter(typing.get_args(hint)[0])
        return lambda value: tuple(item(v) for v in _sequence(value))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return lambda value: _build(hint, value)
    if hint in (int, str, bool):
        return _exactly(hint)
    raise AssertionError(f"no JSON form for {hint!r}")


def _sequence(value: Any) -> list[Any] | tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value


def _build(cls: type, data: Any) -> Any:
    if not isinstance(data, dict):
        raise TypeError(f"expected an object for {cls.__name__}, got {type(data).__name__}")
    names, converters = _plan(cls)
    unknown = data.keys() - names
    if unknown:
        raise ValueError(f"unexpected fields {sorted(unknown)}")
    values = dict(data)
    for name, convert in converters:
        if name in values:
            values[name] = convert(values[name])
    return cls(**values)

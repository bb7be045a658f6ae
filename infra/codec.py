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
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, reduce
from typing import Any

import msgspec

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


@dataclass(frozen=True, slots=True)
class SessionEndedV1:
    """The session was closed (version 1: disputes closed with it)."""

    by: str


@dataclass(frozen=True, slots=True)
class RollDisputedV1:
    """A member disputed a roll (version 1: no time of decision)."""

    roll_id: int
    by: str
    reason: str


@dataclass(frozen=True, slots=True)
class DisputeResolvedV1:
    """A GM ruled on a dispute (version 1: no time of decision)."""

    roll_id: int
    by: str
    outcome: str
    note: str | None


@dataclass(frozen=True, slots=True)
class RollRequestedV1:
    """A roll was asked for (version 1: an opposed check's other side had no rerolls)."""

    roll_id: int
    nonce: int
    epoch: int
    roller: str
    on_behalf_of: str
    kind: str
    side: ev.CheckSide
    median: bool
    exploding: bool
    target: int | None
    dc_modifier: int | None
    dc_label: str | None
    against: str | None
    opponent: ev.CheckSide | None
    action_id: str
    rerolls_granted: int
    reroll_scope: str
    blind: bool
    label: str | None
    client_seed: str
    salt: str
    manual: bool
    replaces: int | None


@dataclass(frozen=True, slots=True)
class RollRequestedV2:
    """A roll was asked for (version 2: every MOD was typed in, none read from a sheet)."""

    roll_id: int
    nonce: int
    epoch: int
    roller: str
    on_behalf_of: str
    kind: str
    side: ev.CheckSide
    median: bool
    exploding: bool
    target: int | None
    dc_modifier: int | None
    dc_label: str | None
    against: str | None
    opponent: ev.CheckSide | None
    action_id: str
    rerolls_granted: int
    reroll_scope: str
    blind: bool
    label: str | None
    client_seed: str
    salt: str
    manual: bool
    replaces: int | None
    opponent_rerolls_granted: int | None = None


@dataclass(frozen=True, slots=True)
class RollRequestedV3:
    """A roll was asked for (version 3: only a GM's blind roll was hidden, no modes)."""

    roll_id: int
    nonce: int
    epoch: int
    roller: str
    on_behalf_of: str
    kind: str
    side: ev.CheckSide
    median: bool
    exploding: bool
    target: int | None
    dc_modifier: int | None
    dc_label: str | None
    against: str | None
    opponent: ev.CheckSide | None
    action_id: str
    rerolls_granted: int
    reroll_scope: str
    blind: bool
    label: str | None
    client_seed: str
    salt: str
    manual: bool
    replaces: int | None
    opponent_rerolls_granted: int | None = None
    references: tuple[ev.SheetValue, ...] = ()
    asked: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DieRerolledV1:
    """A die was rerolled (version 1: single-sided rolls only, so no side or round)."""

    roll_id: int
    die: ev.DieRecord
    replaced: int


@dataclass(frozen=True, slots=True)
class RollAcceptedV1:
    """A waiting roll was accepted (version 1: single-sided rolls only)."""

    roll_id: int
    by: str
    rerolls_left: int


def _session_started_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 had no way to forbid typed-in dice: every session allowed them.
    return {**data, "manual_dice_allowed": True}


def _session_ended_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 closed disputes with the session: no window after the end.
    return {**data, "ended_at": None, "dispute_window": 0}


def _decided_at_unknown(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 disputes and rulings did not record when they were decided; none could be
    # made after the end then, so no window ever needs their time.
    return {**data, "at": None}


def _no_opposed_rerolls(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 opposed checks took no rerolls on either side, not even from their action;
    # null says so (and is the value of every other roll).
    return {**data, "opponent_rerolls_granted": None}


def _no_sheet_values(data: dict[str, Any]) -> dict[str, Any]:
    # Version 2 requests had no characters to read from: every MOD was typed in.
    return {**data, "references": [], "asked": []}


def _blind_as_mode(data: dict[str, Any]) -> dict[str, Any]:
    # Version 3 knew one hidden roll, the GM's blind one; every other roll was public.
    rest = {key: value for key, value in data.items() if key != "blind"}
    return {**rest, "mode": "blind" if data.get("blind") else "public"}


def _first_side_first_round(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 rerolls and accepts were of single-sided rolls: side 0, round 1.
    return {**data, "side": 0, "round": 1}


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("SessionStarted", 1): _session_started_v1_to_v2,
    ("SessionEnded", 1): _session_ended_v1_to_v2,
    ("RollDisputed", 1): _decided_at_unknown,
    ("DisputeResolved", 1): _decided_at_unknown,
    ("RollRequested", 1): _no_opposed_rerolls,
    ("RollRequested", 2): _no_sheet_values,
    ("RollRequested", 3): _blind_as_mode,
    ("DieRerolled", 1): _first_side_first_round,
    ("RollAccepted", 1): _first_side_first_round,
}
# The data each upcaster reads, for the published schema (domain.event_schema): an
# older version is described here, beside the code that still reads it.
OLDER_SHAPES: dict[tuple[str, int], type] = {
    ("SessionStarted", 1): SessionStartedV1,
    ("SessionEnded", 1): SessionEndedV1,
    ("RollDisputed", 1): RollDisputedV1,
    ("DisputeResolved", 1): DisputeResolvedV1,
    ("RollRequested", 1): RollRequestedV1,
    ("RollRequested", 2): RollRequestedV2,
    ("RollRequested", 3): RollRequestedV3,
    ("DieRerolled", 1): DieRerolledV1,
    ("RollAccepted", 1): RollAcceptedV1,
}


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
    cls, data = _upcast(event_type, version, data)
    try:
        checked = msgspec.convert(data, _checked(cls))
    except msgspec.ValidationError as error:
        raise CorruptLogError(f"{event_type} data does not fit the event: {error}") from None
    event: object = msgspec.convert(checked, cls, from_attributes=True)
    assert isinstance(event, ev.Event)
    return event


def _upcast(event_type: str, version: int, data: dict[str, Any]) -> tuple[type, dict[str, Any]]:
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

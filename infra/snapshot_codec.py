"""A session state as snapshot text and back: an explicit JSON codec, never pickle.

A snapshot row is data, so reading one must never run code: every value is read back as
JSON and checked against the type the state holds. The text is JSON Lines: a header
(the scalars, members, seed epochs, and the ids of the rolls and actions, in order),
then one line per roll and one per action. Rolls and actions come back undecoded in a
``Restored`` dict and are decoded when first read (``domain.session.restored``), so
loading a long session costs one split of the text, not a decode of every roll.

The events inside a roll are stored positionally (each record as the list of its fields,
in declaration order), and read back by naming the fields again and building the event
with the log's own codec (``infra.codec``), which checks every value's type. The header
holds a digest of every event's schema version, fields and field types: a snapshot
written under other event shapes, or another fold (``FOLD_VERSION``), is refused and the
session replayed instead.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, TypeVar, cast

from diceledger.domain.dice.request import RerollScope
from diceledger.domain.errors import CorruptLogError
from diceledger.domain.session import events as ev
from diceledger.domain.session.restored import Restored
from diceledger.domain.session.state import FOLD_VERSION, Action, Epoch, Member, Roll, SessionState
from diceledger.infra.codec import decode

FORMAT = 1
E = TypeVar("E", bound=ev.Event)
T = TypeVar("T")


class SnapshotUnreadableError(CorruptLogError):
    """A snapshot's text is not a state this code can read: it is ignored, the log replayed."""


@dataclass(frozen=True, slots=True)
class Head:
    """The log event a state was folded up to: its stream version and its hash."""

    version: int
    hash: str


@cache
def event_shapes() -> str:
    """Return a digest of every event type's schema version, fields and field types.

    Events are stored positionally (fields in declaration order, records nested as
    lists), so a snapshot is read only by code whose event shapes are exactly these.
    """
    seen: dict[str, list[Any]] = {}

    def describe(cls: type) -> None:
        if cls.__name__ in seen:
            return
        hints = typing.get_type_hints(cls, vars(ev))
        fields = [[f.name, str(hints[f.name])] for f in dataclasses.fields(cls)]
        seen[cls.__name__] = [getattr(cls, "schema_version", 0), fields]
        for hint in hints.values():
            for inner in (hint, *typing.get_args(hint)):
                if isinstance(inner, type) and dataclasses.is_dataclass(inner):
                    describe(inner)

    for cls in ev.EVENT_TYPES.values():
        describe(cls)
    text = json.dumps(seen, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def encode(state: SessionState) -> str:
    """Return the snapshot text of ``state``; rolls and actions still undecoded are kept as read."""
    header = {
        "format": FORMAT,
        "fold": FOLD_VERSION,
        "events": event_shapes(),
        "version": state.version,
        "session_id": state.session_id,
        "title": state.title,
        "creator": state.creator,
        "manual_dice_allowed": state.manual_dice_allowed,
        "members": [[m.name, m.role, m.client_seed] for m in state.members.values()],
        "epochs": [
            [e.number, e.commitment, e.algorithm, e.seed, e.first_nonce] for e in state.epochs
        ],
        "next_nonce": state.next_nonce,
        "ended": state.ended,
        "disputes_until": None
        if state.disputes_until is None
        else state.disputes_until.isoformat(),
        "rolls": list(state.rolls.keys()),
        "actions": list(state.actions.keys()),
    }
    lines = [_dumps(header)]
    lines += [_kept(state.rolls, key) or _dumps(_roll(state.rolls[key])) for key in state.rolls]
    lines += [
        _kept(state.actions, key) or _dumps(_action(state.actions[key])) for key in state.actions
    ]
    return "\n".join(lines)


def decode_state(text: str) -> SessionState:
    """Return the state a snapshot's text holds; SnapshotUnreadableError if it is not one."""
    lines = text.split("\n")
    try:
        header = _object(json.loads(lines[0]))
        if (header.get("format"), header.get("fold")) != (FORMAT, FOLD_VERSION):
            raise SnapshotUnreadableError("the snapshot is of another format or fold version")
        if header.get("events") != event_shapes():
            raise SnapshotUnreadableError("the snapshot was written under other event shapes")
        roll_ids = _all_of(int, _list(header["rolls"]))
        action_ids = _all_of(str, _list(header["actions"]))
        if len(lines) != 1 + len(roll_ids) + len(action_ids):
            raise SnapshotUnreadableError("the snapshot's lines do not match its header")
        until = _optional(header["disputes_until"], _str)
        return SessionState(
            version=_int(header["version"]),
            session_id=_optional(header["session_id"], _str),
            title=_str(header["title"]),
            creator=_str(header["creator"]),
            manual_dice_allowed=_bool(header["manual_dice_allowed"]),
            members={m.name: m for m in map(_member, _list(header["members"]))},
            epochs=[_epoch(item) for item in _list(header["epochs"])],
            next_nonce=_int(header["next_nonce"]),
            rolls=Restored(zip(roll_ids, lines[1 : 1 + len(roll_ids)], strict=True), decode_roll),
            actions=Restored(
                zip(action_ids, lines[1 + len(roll_ids) :], strict=True), decode_action
            ),
            ended=_bool(header["ended"]),
            disputes_until=None if until is None else _aware(until),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise SnapshotUnreadableError(f"the snapshot is not a session state: {error}") from None


def decode_roll(line: str) -> Roll:
    """Return the roll stored on one line of a snapshot."""
    try:
        request, dice, ties, resolution, accepts, disputes, ruling, revealed, replaced_by = _list(
            json.loads(line)
        )
        return Roll(
            request=_event(request, ev.RollRequested),
            dice=[_die(item) for item in _list(dice)],
            ties=[_event(item, ev.OpposedCheckTied) for item in _list(ties)],
            resolution=_optional(resolution, _resolution),
            accepts=[_event(item, ev.RollAccepted) for item in _list(accepts)],
            disputes=[_event(item, ev.RollDisputed) for item in _list(disputes)],
            ruling=_optional(ruling, lambda v: _event(v, ev.DisputeResolved)),
            revealed=_bool(revealed),
            replaced_by=_optional(replaced_by, _int),
        )
    except (KeyError, TypeError, ValueError, CorruptLogError) as error:
        raise SnapshotUnreadableError(f"a roll of the snapshot is unreadable: {error}") from None


def decode_action(line: str) -> Action:
    """Return the action stored on one line of a snapshot (its id is the key)."""
    try:
        action_id, owner, granted, scope, spent = _list(json.loads(line))
        return Action(
            _str(action_id), _str(owner), _int(granted), RerollScope(_str(scope)), _int(spent)
        )
    except (TypeError, ValueError) as error:
        raise SnapshotUnreadableError(f"an action of the snapshot is unreadable: {error}") from None


# -- encoding ---------------------------------------------------------------------------


def _dumps(value: object) -> str:
    # ensure_ascii keeps every line free of raw line breaks (U+2028 and the like too).
    return json.dumps(value, separators=(",", ":"))


def _kept(values: dict[Any, Any], key: object) -> str | None:
    return values.encoded(key) if isinstance(values, Restored) else None


def _stored(event: ev.Event) -> list[Any]:
    return [type(event).__name__, _positional(event)]


def _positional(value: object) -> Any:
    # A record as the list of its fields' values, in declaration order (event_shapes).
    if isinstance(value, tuple | list):
        return [_positional(item) for item in value]
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = (
            tuple(f.name for f in dataclasses.fields(kind))
            if dataclasses.is_dataclass(kind)
            else ()
        )
    if not names:
        return value
    return [_positional(getattr(value, name)) for name in names]


_FIELDS: dict[type, tuple[str, ...]] = {}  # each record type's fields, in order; () if none


def _roll(roll: Roll) -> list[Any]:
    return [
        _stored(roll.request),
        [_stored(e) for e in roll.dice],
        [_stored(e) for e in roll.ties],
        None if roll.resolution is None else _stored(roll.resolution),
        [_stored(e) for e in roll.accepts],
        [_stored(e) for e in roll.disputes],
        None if roll.ruling is None else _stored(roll.ruling),
        roll.revealed,
        roll.replaced_by,
    ]


def _action(action: Action) -> list[Any]:
    return [action.action_id, action.owner, action.granted, action.scope.value, action.spent]


# -- decoding, each value checked against its type ----------------------------------------


def _any_event(value: object) -> ev.Event:
    name, values = _list(value)
    cls = ev.EVENT_TYPES.get(_str(name))
    if cls is None:
        raise TypeError(f"no event type {name!r}")
    # Named again, then built and type-checked by the log's own event codec.
    return decode(cls.__name__, cls.schema_version, _named(cls, values))


Named = Callable[[Any], Any]


def _named(cls: type, values: object) -> dict[str, Any]:
    fields = _named_plan(cls)
    listed = _list(values)
    if len(listed) != len(fields):
        raise ValueError(f"{cls.__name__} has {len(fields)} fields, not {len(listed)}")
    return {name: name_of(item) for (name, name_of), item in zip(fields, listed, strict=True)}


@cache
def _named_plan(cls: type) -> tuple[tuple[str, Named], ...]:
    hints = typing.get_type_hints(cls, vars(ev))
    return tuple((f.name, _naming(hints[f.name])) for f in dataclasses.fields(cls))


def _naming(hint: Any) -> Named:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        inner = _naming(next(a for a in typing.get_args(hint) if a is not type(None)))
        return lambda value: None if value is None else inner(value)
    if origin is tuple:
        item = _naming(typing.get_args(hint)[0])
        return lambda value: [item(v) for v in _list(value)]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return lambda value: _named(hint, value)
    return lambda value: value


def _event(value: object, kind: type[E]) -> E:
    event = _any_event(value)
    if not isinstance(event, kind):
        raise TypeError(f"expected {kind.__name__}, got {type(event).__name__}")
    return event


def _die(value: object) -> ev.DiceRolled | ev.DieExploded | ev.DieRerolled:
    event = _any_event(value)
    if not isinstance(event, ev.DiceRolled | ev.DieExploded | ev.DieRerolled):
        raise TypeError(f"expected a die event, got {type(event).__name__}")
    return event


def _resolution(value: object) -> ev.RollResolved | ev.CheckResolved:
    event = _any_event(value)
    if not isinstance(event, ev.RollResolved | ev.CheckResolved):
        raise TypeError(f"expected a resolution, got {type(event).__name__}")
    return event


def _member(value: object) -> Member:
    name, role, client_seed = _list(value)
    return Member(_str(name), _str(role), _str(client_seed))


def _epoch(value: object) -> Epoch:
    number, commitment, algorithm, seed, first_nonce = _list(value)
    return Epoch(
        _int(number),
        _str(commitment),
        _str(algorithm),
        _optional(seed, _str),
        _optional(first_nonce, _int),
    )


def _aware(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"a moment without a time zone: {text}")
    return moment


def _object(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return value


def _list(value: object) -> Sequence[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value


def _all_of(kind: type[T], values: Sequence[object]) -> list[T]:
    # Thousands of keys: their types are collected at C speed, not checked one by one.
    if not set(map(type, values)) <= {kind}:
        raise TypeError(f"expected a list of {kind.__name__}")
    return cast(list[T], values)


def _int(value: object) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {type(value).__name__}")
    return value


def _optional(value: object, read: Callable[[Any], T]) -> T | None:
    return None if value is None else read(value)

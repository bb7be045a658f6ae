"""A session state as snapshot text and back: msgspec JSON, decoded whole or not at all.

A snapshot row is data, so reading one must never run code, and a state read from one
must be exactly a state the fold builds: the text is one JSON document decoded by msgspec
into the state's own dataclasses, every value checked against its type. Any value that
does not fit refuses the whole snapshot (``SnapshotUnreadableError``), so the caller
replays the log instead; nothing undecoded is left for a command to trip over.

A roll's die and resolution events are of several types; each is stored as
``[event type, event]`` and decoded by that type's decoder. The document carries a
digest of the shapes it is written in (every event, record and state type, from their
msgspec schemas) and the fold's version: a snapshot written under other shapes or by
another fold is refused and the session replayed.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Annotated, TypeVar

import msgspec
import msgspec.inspect

from diceledger.domain.errors import CorruptLogError
from diceledger.domain.session import events as ev
from diceledger.domain.session.sheets import Character
from diceledger.domain.session.state import FOLD_VERSION, Action, Epoch, Member, Roll, SessionState

FORMAT = 2
E = TypeVar("E", bound=ev.Event)
Die = ev.DiceRolled | ev.DieExploded | ev.DieRerolled
Resolution = ev.RollResolved | ev.CheckResolved
_DIE_TYPES: tuple[type[Die], ...] = (ev.DiceRolled, ev.DieExploded, ev.DieRerolled)
_RESOLUTION_TYPES: tuple[type[Resolution], ...] = (ev.RollResolved, ev.CheckResolved)


class SnapshotUnreadableError(CorruptLogError):
    """A snapshot's text is not a state this code can read: it is ignored, the log replayed."""


@dataclass(frozen=True, slots=True)
class Head:
    """The log event a state was folded up to: its stream version and its hash."""

    version: int
    hash: str


class _StoredRoll(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A ``Roll`` as stored: its events of several types each tagged with its type."""

    request: ev.RollRequested
    dice: list[tuple[str, msgspec.Raw]]
    ties: list[ev.OpposedCheckTied]
    resolution: tuple[str, msgspec.Raw] | None
    accepts: list[ev.RollAccepted]
    disputes: list[ev.RollDisputed]
    ruling: ev.DisputeResolved | None
    revealed: bool
    replaced_by: int | None


class _Snapshot(msgspec.Struct, forbid_unknown_fields=True):
    """A ``SessionState`` as stored, with the format, fold and shapes it was written in."""

    format: int
    fold: int
    shapes: str
    version: int
    session_id: str | None
    title: str
    creator: str
    manual_dice_allowed: bool
    members: list[Member]
    epochs: list[Epoch]
    next_nonce: int
    rolls: list[tuple[int, _StoredRoll]]
    actions: list[Action]
    ended: bool
    disputes_until: Annotated[datetime, msgspec.Meta(tz=True)] | None
    sheets: str
    characters: list[Character]
    npc_names: list[str]


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(_Snapshot)
_EVENT_DECODERS = {
    cls.__name__: msgspec.json.Decoder(cls) for cls in _DIE_TYPES + _RESOLUTION_TYPES
}


@cache
def shapes() -> str:
    """Return a digest of the shapes a snapshot is written in: its own and every event's.

    msgspec's description of each type names its fields, their types and defaults (and
    of the records and state types inside them), so a snapshot is read only by code whose
    shapes are exactly these. Its text is a third of the cost of a JSON Schema's.
    """
    described = msgspec.inspect.multi_type_info([_Snapshot, *ev.EVENT_TYPES.values()])
    versions = sorted((name, cls.schema_version) for name, cls in ev.EVENT_TYPES.items())
    return hashlib.sha256(repr((described, versions)).encode()).hexdigest()[:32]


def encode(state: SessionState) -> str:
    """Return the snapshot text of ``state``."""
    snapshot = _Snapshot(
        format=FORMAT,
        fold=FOLD_VERSION,
        shapes=shapes(),
        version=state.version,
        session_id=state.session_id,
        title=state.title,
        creator=state.creator,
        manual_dice_allowed=state.manual_dice_allowed,
        members=list(state.members.values()),
        epochs=state.epochs,
        next_nonce=state.next_nonce,
        rolls=[(roll_id, _stored(roll)) for roll_id, roll in state.rolls.items()],
        actions=list(state.actions.values()),
        ended=state.ended,
        disputes_until=state.disputes_until,
        sheets=state.sheets,
        characters=list(state.characters.values()),
        npc_names=sorted(state.npc_names),
    )
    return _ENCODER.encode(snapshot).decode()


def decode_state(text: str) -> SessionState:
    """Return the state a snapshot's text holds; SnapshotUnreadableError if it is not one."""
    with _collector_paused():
        return _decoded(text)


def _decoded(text: str) -> SessionState:
    try:
        snapshot = _DECODER.decode(text)
        if (snapshot.format, snapshot.fold) != (FORMAT, FOLD_VERSION):
            raise SnapshotUnreadableError("the snapshot is of another format or fold version")
        if snapshot.shapes != shapes():
            raise SnapshotUnreadableError("the snapshot was written under other shapes")
        rolls = {roll_id: _roll(stored) for roll_id, stored in snapshot.rolls}
    except (msgspec.DecodeError, ValueError) as error:  # msgspec.ValidationError too
        raise SnapshotUnreadableError(f"the snapshot is not a session state: {error}") from None
    return SessionState(
        version=snapshot.version,
        session_id=snapshot.session_id,
        title=snapshot.title,
        creator=snapshot.creator,
        manual_dice_allowed=snapshot.manual_dice_allowed,
        members={member.name: member for member in snapshot.members},
        epochs=snapshot.epochs,
        next_nonce=snapshot.next_nonce,
        rolls=rolls,
        actions={action.action_id: action for action in snapshot.actions},
        ended=snapshot.ended,
        disputes_until=snapshot.disputes_until,
        sheets=snapshot.sheets,
        characters={character.name: character for character in snapshot.characters},
        npc_names=set(snapshot.npc_names),
    )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Hold off the cycle collector while a snapshot's objects are made.

    A long session's state is tens of thousands of new objects, none of them in a cycle,
    and every 700 of them would start a collection, now and then of the whole heap, that
    walks them all again: on a 20,000-event session that was most of the decode
    (docs/performance.md, W8). A collector that was off stays off.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            _to_oldest_generation()
            gc.enable()


def _to_oldest_generation() -> None:
    """Move every tracked object into the collector's oldest generation, without a walk.

    Made with the collector off, a state's objects sit in the youngest generation, and the
    next young collections would walk them all twice on their way to the oldest (a fifth
    of a cold command's decode on a 20,000-event session, docs/performance.md, W8).
    Freezing and unfreezing splices the generations' lists, whatever their length. A
    process that froze objects of its own (before a fork) is left as it is.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def _stored(roll: Roll) -> _StoredRoll:
    return _StoredRoll(
        request=roll.request,
        dice=[_tagged(die) for die in roll.dice],
        ties=roll.ties,
        resolution=None if roll.resolution is None else _tagged(roll.resolution),
        accepts=roll.accepts,
        disputes=roll.disputes,
        ruling=roll.ruling,
        revealed=roll.revealed,
        replaced_by=roll.replaced_by,
    )


def _tagged(event: ev.Event) -> tuple[str, msgspec.Raw]:
    return type(event).__name__, msgspec.Raw(_ENCODER.encode(event))


def _roll(stored: _StoredRoll) -> Roll:
    return Roll(
        request=stored.request,
        dice=[_event(tagged, _DIE_TYPES) for tagged in stored.dice],
        ties=stored.ties,
        resolution=None
        if stored.resolution is None
        else _event(stored.resolution, _RESOLUTION_TYPES),
        accepts=stored.accepts,
        disputes=stored.disputes,
        ruling=stored.ruling,
        revealed=stored.revealed,
        replaced_by=stored.replaced_by,
    )


def _event(tagged: tuple[str, msgspec.Raw], kinds: tuple[type[E], ...]) -> E:
    name, raw = tagged
    decoder = _EVENT_DECODERS.get(name)
    event = None if decoder is None else decoder.decode(raw)
    if not isinstance(event, kinds):
        raise ValueError(f"a {name} where one of {[kind.__name__ for kind in kinds]} belongs")
    return event

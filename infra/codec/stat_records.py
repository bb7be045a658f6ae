"""The fields of each event that the statistics fold reads, decoded from the stored text.

A rebuild reads every event of the log, and the full codec (``codec.events``) builds each
one whole: every field checked, then a domain dataclass. The fold needs a few fields of
most events and nothing of some, so each event it reads has a struct here with only
those fields, which msgspec decodes straight from the JSON text (the other keys are
skipped unread); events it ignores are passed by their type, undecoded. The fields
decoded keep their exact types (JSON true is no integer). The whole event is checked
where the log is verified, not here. An older schema version goes through the codec's
upcasters first, as every reader of the log does.
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

from diceledger.domain.errors import CorruptLogError
from diceledger.domain.session import events as ev
from diceledger.infra.codec.events import upcast


class Amount(msgspec.Struct, frozen=True):
    """An amount of Advantage, Disadvantage, Eased or Hindered (its label is not read)."""

    amount: int


class Side(msgspec.Struct, frozen=True):
    """One side of a request: its name, expression and modifiers."""

    name: str
    expression: str
    advantage: tuple[Amount, ...] = ()
    disadvantage: tuple[Amount, ...] = ()
    eased: tuple[Amount, ...] = ()
    hindered: tuple[Amount, ...] = ()


class SheetRead(msgspec.Struct, frozen=True):
    """A sheet value a request used: whose character, for which side, and where."""

    use: str
    side: int
    character: str


class Die(msgspec.Struct, frozen=True):
    """A die as the statistics count it, with the draw a reroll's replay hands back."""

    sides: int
    face: int
    reason: str
    step: int
    parent: int | None
    source: str
    block: int | None
    word: int | None


class Joined(msgspec.Struct, frozen=True):
    """PlayerJoined."""

    name: str
    role: str


class Requested(msgspec.Struct, frozen=True):
    """RollRequested."""

    roll_id: int
    on_behalf_of: str
    kind: str
    side: Side
    median: bool
    exploding: bool
    target: int | None
    opponent: Side | None
    action_id: str
    rerolls_granted: int
    reroll_scope: str
    mode: str
    opponent_rerolls_granted: int | None = None
    references: tuple[SheetRead, ...] = ()
    roller: str = ""  # who rolled: a player sees their own gm and self rolls


class Rolled(msgspec.Struct, frozen=True):
    """DiceRolled."""

    roll_id: int
    dice: tuple[Die, ...]
    side: int = 0
    round: int = 1


class Exploded(msgspec.Struct, frozen=True):
    """DieExploded."""

    roll_id: int
    die: Die
    side: int = 0
    round: int = 1


class Rerolled(msgspec.Struct, frozen=True):
    """DieRerolled."""

    roll_id: int
    die: Die
    replaced: int
    side: int = 0
    round: int = 1


class CheckDone(msgspec.Struct, frozen=True):
    """CheckResolved."""

    roll_id: int
    success: bool | None
    winner: str | None = None


class RollDone(msgspec.Struct, frozen=True):
    """RollResolved."""

    roll_id: int


class Revealed(msgspec.Struct, frozen=True):
    """RollRevealed."""

    roll_id: int


class Disputed(msgspec.Struct, frozen=True):
    """RollDisputed."""

    roll_id: int
    by: str


class Ruled(msgspec.Struct, frozen=True):
    """DisputeResolved."""

    roll_id: int
    outcome: str


class Ended(msgspec.Struct, frozen=True):
    """SessionEnded."""


class Created(msgspec.Struct, frozen=True):
    """CharacterCreated."""

    character: str
    owner: str | None


class Retired(msgspec.Struct, frozen=True):
    """CharacterRetired."""

    character: str


StatRecord: TypeAlias = (
    Joined
    | Requested
    | Rolled
    | Exploded
    | Rerolled
    | CheckDone
    | RollDone
    | Revealed
    | Disputed
    | Ruled
    | Ended
    | Created
    | Retired
)
DiceRecord: TypeAlias = Rolled | Exploded | Rerolled

# Event type -> the struct of what the fold reads of it. The statistics never read the
# other types (seeds, accepts, ties, sheet values, saved rolls), so those stay undecoded.
READ: dict[str, type[StatRecord]] = {
    "PlayerJoined": Joined,
    "RollRequested": Requested,
    "DiceRolled": Rolled,
    "DieExploded": Exploded,
    "DieRerolled": Rerolled,
    "CheckResolved": CheckDone,
    "RollResolved": RollDone,
    "RollRevealed": Revealed,
    "RollDisputed": Disputed,
    "DisputeResolved": Ruled,
    "SessionEnded": Ended,
    "CharacterCreated": Created,
    "CharacterRetired": Retired,
}
_DECODERS = {name: msgspec.json.Decoder(struct) for name, struct in READ.items()}
_CURRENT = {name: cls.schema_version for name, cls in ev.EVENT_TYPES.items()}
_PLAIN = msgspec.json.Decoder()


def stat_record(event_type: str, version: int, text: str | bytes) -> StatRecord | None:
    """Return what the statistics read of a stored event, or None for a type they skip."""
    decoder = _DECODERS.get(event_type)
    if version != _CURRENT.get(event_type):
        return _upcast_record(event_type, version, text)
    if decoder is None:
        return None
    try:
        record: StatRecord = decoder.decode(text)
    except msgspec.DecodeError as error:
        raise CorruptLogError(f"{event_type} data does not fit the event: {error}") from None
    return record


def _upcast_record(event_type: str, version: int, text: str | bytes) -> StatRecord | None:
    # An older version (or an unknown type, or a newer version, which upcast refuses).
    try:
        data = _PLAIN.decode(text)
    except msgspec.DecodeError as error:
        raise CorruptLogError(f"{event_type} data is not JSON: {error}") from None
    _, data = upcast(event_type, version, data)
    struct = READ.get(event_type)
    if struct is None:
        return None
    try:
        return msgspec.convert(data, struct)
    except msgspec.ValidationError as error:
        raise CorruptLogError(f"{event_type} data does not fit the event: {error}") from None

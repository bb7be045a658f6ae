"""The events of a session's stream: past-tense facts, each with a schema version.

Field values are JSON-friendly (str, int, bool, None, tuples, and the small frozen
records below) so that one mapper in infra/ can store any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypeAlias, get_args


@dataclass(frozen=True, slots=True)
class Amount:
    """A labelled amount of Advantage, Disadvantage, Eased or Hindered."""

    amount: int
    label: str | None = None


@dataclass(frozen=True, slots=True)
class DieRecord:
    """One die as rolled: enough to show it, resolve the roll again and re-derive it.

    ``index`` is the draw number within the roll (for an opposed check, within its side
    and round); ``epoch``, ``nonce``, ``block`` and ``word`` locate a seeded die in its
    seed's stream; a manual die has source "manual" and no block or word.
    """

    index: int
    term: int
    slot: int
    sides: int
    face: int
    reason: str
    step: int
    parent: int | None
    source: str
    epoch: int | None
    nonce: int
    block: int | None
    word: int | None


@dataclass(frozen=True, slots=True)
class CheckSide:
    """What one side of a roll asked for: the expression and its check options."""

    name: str
    expression: str
    advantage: tuple[Amount, ...] = ()
    disadvantage: tuple[Amount, ...] = ()
    eased: tuple[Amount, ...] = ()
    hindered: tuple[Amount, ...] = ()


@dataclass(frozen=True, slots=True)
class SheetValue:
    """A value a roll took from a character's sheet (``@STR``, ``@Athletics``).

    ``use`` is where it went: ``roll`` (a side's expression, ``side`` 0 or 1) or ``dc``
    (the DC of R4, from the origin's sheet). ``set_at`` is the stream version of the
    AttributeSet or QualitySet that gave the value.
    """

    use: str  # "roll" | "dc"
    side: int
    character: str
    name: str
    value: int
    set_at: int


class EventBase:
    """Base of the session events; ``schema_version`` is the current version of each."""

    schema_version: ClassVar[int] = 1


@dataclass(frozen=True, slots=True)
class SessionStarted(EventBase):
    """A session was opened; its creator is its first GM."""

    schema_version: ClassVar[int] = 2
    session_id: str
    title: str
    gm: str
    manual_dice_allowed: bool


@dataclass(frozen=True, slots=True)
class PlayerJoined(EventBase):
    """Someone joined the session, was added to it, or was made a co-GM."""

    name: str
    role: str  # "player" | "gm"
    client_seed: str
    added_by: str


@dataclass(frozen=True, slots=True)
class SeedCommitted(EventBase):
    """A seed epoch began: the SHA-256 of its secret seed was published."""

    epoch: int
    commitment: str
    algorithm: str


@dataclass(frozen=True, slots=True)
class RollRequested(EventBase):
    """A roll, check, save or opposed check was asked for; it takes the next nonce.

    ``opponent_rerolls_granted`` is the allowance of an opposed check's other side; it is
    None for other rolls and for opposed checks of version 1, which took no rerolls on
    either side (their upcaster says so).

    ``references`` are the sheet values the request used, and ``asked`` the expressions
    as typed, one per side, when a side referenced the sheet (its ``expression`` then holds
    the values written out). Version 2 had neither: every MOD was typed as a number.

    ``mode`` is a RollMode value (public, gm, blind, self): who sees the roll until it is
    revealed. Version 3 had only ``blind``, a GM's roll hidden from players.

    ``rules_edition`` is the edition of the request rules it was decided under
    (``domain.session.editions``). Version 4 had none: its requests were all of the first.
    """

    schema_version: ClassVar[int] = 5
    roll_id: int
    nonce: int
    epoch: int
    roller: str
    on_behalf_of: str
    kind: str  # effect | damage | check | save | opposed
    side: CheckSide
    median: bool
    exploding: bool
    target: int | None
    dc_modifier: int | None
    dc_label: str | None
    against: str | None
    opponent: CheckSide | None
    action_id: str
    rerolls_granted: int
    reroll_scope: str
    mode: str  # RollMode
    label: str | None
    client_seed: str
    salt: str
    manual: bool
    replaces: int | None
    rules_edition: int
    opponent_rerolls_granted: int | None = None
    references: tuple[SheetValue, ...] = ()
    asked: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DiceRolled(EventBase):
    """The initial dice of a roll (or of one side and round of an opposed check)."""

    roll_id: int
    dice: tuple[DieRecord, ...]
    side: int = 0
    round: int = 1


@dataclass(frozen=True, slots=True)
class DieExploded(EventBase):
    """A counted die showed its maximum, so one more die was added to its chain."""

    roll_id: int
    die: DieRecord
    side: int = 0
    round: int = 1


@dataclass(frozen=True, slots=True)
class DieRerolled(EventBase):
    """A base die was discarded and rolled again, spending one reroll of its side.

    Version 1 had no ``side`` or ``round``: only single-sided rolls were rerolled then.
    """

    schema_version: ClassVar[int] = 2
    roll_id: int
    die: DieRecord
    replaced: int
    side: int = 0
    round: int = 1


@dataclass(frozen=True, slots=True)
class RollAccepted(EventBase):
    """The roller (or the GM ending the session) closed a roll that could still reroll.

    For an opposed check it closes one side's turn in one round. Version 1 had no ``side``
    or ``round``: only single-sided rolls waited then.
    """

    schema_version: ClassVar[int] = 2
    roll_id: int
    by: str
    rerolls_left: int
    side: int = 0
    round: int = 1


@dataclass(frozen=True, slots=True)
class RollResolved(EventBase):
    """A plain roll (no target) was resolved to its total."""

    roll_id: int
    total: int
    detail: str


@dataclass(frozen=True, slots=True)
class CheckResolved(EventBase):
    """A check, save or opposed check was resolved: total, target, success, margin."""

    roll_id: int
    total: int
    target: int | None
    success: bool | None
    margin: int | None
    detail: str
    opponent_total: int | None = None
    winner: str | None = None
    rounds: int = 1


@dataclass(frozen=True, slots=True)
class OpposedCheckTied(EventBase):
    """A round of an opposed check ended in a tie, so both sides roll again."""

    roll_id: int
    round: int
    total: int


@dataclass(frozen=True, slots=True)
class RollDisputed(EventBase):
    """A dispute; ``at`` is when it was decided (ISO UTC), which the window after the end
    is judged by. Version 1 had no ``at``."""

    schema_version: ClassVar[int] = 2
    roll_id: int
    by: str
    reason: str
    at: str | None = None


@dataclass(frozen=True, slots=True)
class DisputeResolved(EventBase):
    """A ruling; ``at`` as for RollDisputed (version 1 had none)."""

    schema_version: ClassVar[int] = 2
    roll_id: int
    by: str
    outcome: str  # "upheld" | "voided"
    note: str | None
    at: str | None = None


@dataclass(frozen=True, slots=True)
class RollRevealed(EventBase):
    """A GM showed a blind roll to the players."""

    roll_id: int
    by: str


@dataclass(frozen=True, slots=True)
class SeedRevealed(EventBase):
    """An epoch's seed was published, so its dice can be derived again by anyone."""

    epoch: int
    seed: str  # hex
    by: str


@dataclass(frozen=True, slots=True)
class SessionEnded(EventBase):
    """The end; disputes stay open ``dispute_window`` seconds after ``ended_at`` (ISO UTC).

    Version 1 had neither field: no dispute could be raised after the end.
    """

    schema_version: ClassVar[int] = 2
    by: str
    ended_at: str | None = None
    dispute_window: int = 0


@dataclass(frozen=True, slots=True)
class SheetRightsSet(EventBase):
    """A GM chose who may change a player character's values: ``player`` (its owner and
    the GMs) or ``gm`` (the GMs only). Until one is recorded, ``player`` holds."""

    sheets: str  # "player" | "gm"
    by: str


@dataclass(frozen=True, slots=True)
class CharacterCreated(EventBase):
    """A character joined the session's sheets: a member's own, or an NPC of the GMs."""

    character: str
    owner: str | None  # a member's name; None: the GMs' (an NPC)
    by: str


@dataclass(frozen=True, slots=True)
class AttributeSet(EventBase):
    """A character's attribute MOD (STR, DEX ...) was set, by its owner or a GM."""

    character: str
    name: str
    value: int
    label: str | None
    by: str


@dataclass(frozen=True, slots=True)
class QualitySet(EventBase):
    """A character's Quality (a skill's or an item's, such as Athletics) was set."""

    character: str
    name: str
    value: int
    by: str


@dataclass(frozen=True, slots=True)
class RollSaved(EventBase):
    """A character kept a named roll (Longsword: 1d20+@STR), rolled later by its name;
    saving a name again replaces what it rolls."""

    character: str
    name: str
    kind: str  # effect | damage | check
    expression: str
    by: str


@dataclass(frozen=True, slots=True)
class CharacterRetired(EventBase):
    """A character left play: its sheet can no longer be changed or rolled from."""

    character: str
    by: str


# What happens to the session's sheets.
SheetEvent: TypeAlias = (
    SheetRightsSet | CharacterCreated | AttributeSet | QualitySet | RollSaved | CharacterRetired
)
# What happens to the session as a whole.
SessionWide: TypeAlias = (
    SessionStarted | PlayerJoined | SeedCommitted | SeedRevealed | SessionEnded | SheetEvent
)
# The events that happen to one roll, after its request.
RollFollowUp: TypeAlias = (
    DiceRolled
    | DieExploded
    | DieRerolled
    | RollAccepted
    | RollResolved
    | CheckResolved
    | OpposedCheckTied
    | RollDisputed
    | DisputeResolved
    | RollRevealed
)
# The closed set of a session's events. Every fold matches on it exhaustively and ends in
# ``assert_never``, so a new event type fails type-checking wherever a fold forgets it.
Event: TypeAlias = SessionWide | RollRequested | RollFollowUp

EVENT_TYPES: dict[str, type[Event]] = {cls.__name__: cls for cls in get_args(Event)}


def roll_id_of(event: Event) -> int | None:
    """Return the roll an event belongs to, None for a session-wide event."""
    match event:
        case (
            SessionStarted()
            | PlayerJoined()
            | SeedCommitted()
            | SeedRevealed()
            | SessionEnded()
            | SheetRightsSet()
            | CharacterCreated()
            | AttributeSet()
            | QualitySet()
            | RollSaved()
            | CharacterRetired()
        ):
            return None
        case _:
            # Every other event belongs to a roll; one that did not would fail here.
            return event.roll_id

"""What people ask a session to do: imperative commands, decided by ``decide``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.session import editions
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode


class Ruling(StrEnum):
    """How a GM rules on a disputed roll."""

    UPHELD = "upheld"
    VOIDED = "voided"


@dataclass(frozen=True, slots=True)
class StartSession:
    """Open a session; ``carried`` are the sheet commands that bring a campaign's
    characters from its previous session, decided by the starting GM with the start."""

    session_id: str
    title: str
    commitment: str
    manual_dice_allowed: bool = True
    carried: tuple[CarriedCommand, ...] = ()


@dataclass(frozen=True, slots=True)
class JoinSession:
    name: str
    client_seed: str = ""
    as_gm: bool = False


@dataclass(frozen=True, slots=True)
class RequestRoll:
    """A plain roll, a check or a save (``kind``); ``faces`` are typed-in physical dice.

    ``target`` is a plain target or a DC (``Target.dc``), whose value the domain derives.
    ``dc_reference`` instead names the attribute or Quality of the save's origin (the
    character ``against`` names) whose MOD the DC takes (R4); the expression may read the
    roller's own sheet (``1d20+@STR``). ``saved`` names a saved roll of the roller's
    character, whose kind and expression the request takes (and whose name, as its label).
    ``rules_edition`` is today's for every face; only verification, deciding a logged
    request again, gives the edition the log recorded (``domain.session.editions``).
    """

    kind: RollKind
    expression: str
    advantage: tuple[Amount, ...] = ()
    disadvantage: tuple[Amount, ...] = ()
    eased: tuple[Amount, ...] = ()
    hindered: tuple[Amount, ...] = ()
    median: bool = False
    exploding: bool = True
    target: Target | None = None
    against: str | None = None
    action_id: str | None = None
    rerolls: int = 0
    reroll_scope: RerollScope = RerollScope.EFFECT
    auto_reroll: bool = False
    mode: RollMode = RollMode.PUBLIC
    on_behalf_of: str | None = None
    label: str | None = None
    salt: str = ""
    faces: tuple[int, ...] | None = None
    replaces: int | None = None
    dc_reference: str | None = None
    saved: str | None = None
    rules_edition: int = editions.CURRENT


@dataclass(frozen=True, slots=True)
class RequestOpposed:
    """An opposed check: both sides rolled at once, round after round while tied (R6).

    ``rerolls`` and ``reroll_scope`` are the request's side's allowance, granted to its
    action as for any roll; ``opponent_rerolls`` is the other side's own (R11). None
    there asks for a check with no rerolls on either side, as version 1 logs recorded
    every opposed check (verification reads them so); the faces never send it. So with
    ``rules_edition``, as for ``RequestRoll``. ``opponent_rolls`` leaves the other side's
    dice to its own member, round after round (``RollSide``), instead of the server.
    """

    side: CheckSide
    opponent: CheckSide
    median: bool = False
    exploding: bool = True
    action_id: str | None = None
    rerolls: int = 0
    reroll_scope: RerollScope = RerollScope.EFFECT
    opponent_rerolls: int | None = 0
    mode: RollMode = RollMode.PUBLIC
    on_behalf_of: str | None = None
    label: str | None = None
    salt: str = ""
    faces: tuple[int, ...] | None = None
    rules_edition: int = editions.CURRENT
    opponent_rolls: bool = False


@dataclass(frozen=True, slots=True)
class Turn:
    """One side's turn in one round of an opposed check (side 0 is the request's)."""

    side: int
    round: int


@dataclass(frozen=True, slots=True)
class Reroll:
    """Reroll chosen dice of a waiting roll.

    ``turn``, when given, is the turn of an opposed check the roller saw: if the check has
    moved on by the time the command is decided, it is refused rather than applied to
    another side's or round's dice.
    """

    roll_id: int
    dice: tuple[int, ...]
    faces: tuple[int, ...] | None = None
    turn: Turn | None = None


@dataclass(frozen=True, slots=True)
class RollSide:
    """Roll one's own side of an opposed check that waits for its dice (R6).

    ``faces`` are the member's physical dice typed in; without them the server rolls the
    side's dice, as it would have with the request. ``turn`` as for ``Reroll``.
    """

    roll_id: int
    faces: tuple[int, ...] | None = None
    turn: Turn | None = None


@dataclass(frozen=True, slots=True)
class Accept:
    """Close a waiting roll, or one side's turn of an opposed check, as it stands.

    ``faces`` are typed-in dice for the fresh round an opposed check rolls if it then ties;
    ``turn`` is the turn the roller saw, as for ``Reroll``.
    """

    roll_id: int
    faces: tuple[int, ...] | None = None
    turn: Turn | None = None


@dataclass(frozen=True, slots=True)
class RevealRoll:
    roll_id: int


@dataclass(frozen=True, slots=True)
class RevealSeed:
    """Publish the current epoch's seed and commit to the next one."""

    seed: bytes
    next_commitment: str


@dataclass(frozen=True, slots=True)
class EndSession:
    """End the session, revealing ``seed``; disputes stay open ``dispute_window`` seconds."""

    seed: bytes
    dispute_window: int = 7 * 24 * 3600


@dataclass(frozen=True, slots=True)
class OpenDispute:
    roll_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class ResolveDispute:
    roll_id: int
    outcome: Ruling
    note: str | None = None


@dataclass(frozen=True, slots=True)
class SetSheetRights:
    """Choose who may change a player character's values: ``player`` or ``gm``."""

    sheets: str


@dataclass(frozen=True, slots=True)
class CreateCharacter:
    """Create a character: the acting member's own, another member's, or an NPC (owner None)."""

    character: str
    owner: str | None


@dataclass(frozen=True, slots=True)
class SetAttribute:
    character: str
    name: str
    value: int
    label: str | None = None


@dataclass(frozen=True, slots=True)
class SetQuality:
    character: str
    name: str
    value: int


@dataclass(frozen=True, slots=True)
class SaveRoll:
    """Keep a named roll on a character's sheet (``Longsword``: a check of ``1d20+@STR``)."""

    character: str
    name: str
    kind: RollKind
    expression: str


@dataclass(frozen=True, slots=True)
class RetireCharacter:
    character: str


# The sheet commands a campaign's next session starts with, its characters carried over.
CarriedCommand = CreateCharacter | SetAttribute | SetQuality | SaveRoll
SheetCommand = (
    SetSheetRights | CreateCharacter | SetAttribute | SetQuality | SaveRoll | RetireCharacter
)

Command = (
    StartSession
    | JoinSession
    | RequestRoll
    | RequestOpposed
    | Reroll
    | RollSide
    | Accept
    | RevealRoll
    | RevealSeed
    | EndSession
    | OpenDispute
    | ResolveDispute
    | SheetCommand
)

"""The state of a session, folded from its events (``evolve``).

The fold mutates one SessionState in place: a session of thousands of rolls replays in
linear time. ``replay`` is the only way to build one, and it refuses an event whose
stream version is not the next one.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import assert_never

from diceledger.domain.dice.request import RerollScope, RollKind
from diceledger.domain.errors import CorruptLogError
from diceledger.domain.hashchain import parse_timestamp
from diceledger.domain.session import events as ev
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.sheets import PLAYER_SHEETS, Character, Entry, SavedRoll

# The version of the fold below. Bump it whenever ``evolve`` (or a record it builds)
# changes what a state holds: persisted snapshots of another fold version are ignored and
# rebuilt from the log (docs/storage.md, "Session snapshots").
FOLD_VERSION = 2

GM = "gm"
PLAYER = "player"
AWAITING = "awaiting_rerolls"
RESOLVED = "resolved"


@dataclass
class Member:
    """Someone in the session, with their role and optional client seed."""

    name: str
    role: str
    client_seed: str

    @property
    def is_gm(self) -> bool:
        """Tell whether this member is a GM or co-GM."""
        return self.role == GM


@dataclass
class Epoch:
    """A seed epoch: its public commitment and, once revealed, the seed."""

    number: int
    commitment: str
    algorithm: str
    seed: str | None = None
    first_nonce: int | None = None


@dataclass
class Action:
    """A group of rolls sharing one reroll allowance (R11)."""

    action_id: str
    owner: str
    granted: int
    scope: RerollScope
    spent: int = 0

    @property
    def remaining(self) -> int:
        """Return the rerolls not yet spent."""
        return self.granted - self.spent

    def covers(self, kind: str) -> bool:
        """Tell whether the allowance may be spent on a roll of ``kind``."""
        return self.scope.covers(RollKind(kind))


@dataclass
class Roll:
    """One roll request and everything that happened to it since."""

    request: ev.RollRequested
    dice: list[ev.DiceRolled | ev.DieExploded | ev.DieRerolled] = field(default_factory=list)
    ties: list[ev.OpposedCheckTied] = field(default_factory=list)
    resolution: ev.RollResolved | ev.CheckResolved | None = None
    accepts: list[ev.RollAccepted] = field(default_factory=list)
    disputes: list[ev.RollDisputed] = field(default_factory=list)
    ruling: ev.DisputeResolved | None = None
    revealed: bool = False
    replaced_by: int | None = None

    @property
    def roll_id(self) -> int:
        """Return the roll's number within the session."""
        return self.request.roll_id

    @property
    def status(self) -> str:
        """Return ``resolved`` or ``awaiting_rerolls``."""
        return RESOLVED if self.resolution else AWAITING

    @property
    def voided(self) -> bool:
        """Tell whether a GM voided the roll after a dispute."""
        return self.ruling is not None and self.ruling.outcome == "voided"

    @property
    def open_dispute(self) -> bool:
        """Tell whether a dispute is raised and not yet ruled on."""
        return bool(self.disputes) and self.ruling is None

    @property
    def mode(self) -> RollMode:
        """Return who the roll is shown to until it is revealed."""
        return RollMode(self.request.mode)

    @property
    def hidden(self) -> bool:
        """Tell whether some member may not see it yet (a roll not public, not revealed)."""
        return self.mode is not RollMode.PUBLIC and not self.revealed

    @property
    def accepted(self) -> bool:
        """Tell whether the roll (or a side of an opposed check) was ever accepted."""
        return bool(self.accepts)

    @property
    def rerolls(self) -> int:
        """Return how many dice of this roll were rerolled, on every side."""
        return sum(isinstance(e, ev.DieRerolled) for e in self.dice)

    def rerolls_of(self, side: int) -> int:
        """Return how many dice of one side were rerolled, over every round."""
        return sum(isinstance(e, ev.DieRerolled) and e.side == side for e in self.dice)

    def snapshot(self) -> Roll:
        """Return a copy that later events of the session leave as it is."""
        return replace(
            self,
            dice=list(self.dice),
            ties=list(self.ties),
            accepts=list(self.accepts),
            disputes=list(self.disputes),
        )


@dataclass
class SessionState:
    """Everything the aggregate needs to decide the next command."""

    version: int = 0
    session_id: str | None = None
    title: str = ""
    creator: str = ""
    manual_dice_allowed: bool = True
    members: dict[str, Member] = field(default_factory=dict)
    epochs: list[Epoch] = field(default_factory=list)
    next_nonce: int = 1
    rolls: dict[int, Roll] = field(default_factory=dict)
    actions: dict[str, Action] = field(default_factory=dict)
    ended: bool = False
    # After the end, disputes (and rulings) are taken until this moment; None: none at all.
    disputes_until: datetime | None = None
    sheets: str = PLAYER_SHEETS
    characters: dict[str, Character] = field(default_factory=dict)
    # Names rolled for as NPCs (not members when rolled for): nobody may join under them.
    npc_names: set[str] = field(default_factory=set)

    @property
    def started(self) -> bool:
        """Tell whether the session exists."""
        return self.session_id is not None

    @property
    def epoch(self) -> Epoch:
        """Return the current (latest) seed epoch."""
        return self.epochs[-1]

    def snapshot(self) -> SessionState:
        """Return a copy that later events of the session leave as it is."""
        return copy.deepcopy(self)

    def is_gm(self, name: str) -> bool:
        """Tell whether ``name`` is a GM of this session."""
        member = self.members.get(name)
        return member is not None and member.is_gm

    def character_of(self, side: str) -> Character | None:
        """Return the character a side rolls with: a member's own, or the NPC of that name."""
        if side in self.members and side not in self.npc_names:
            owned = (c for c in self.characters.values() if c.owner == side and not c.retired)
            return next(owned, None)
        npc = self.characters.get(side)
        return npc if npc is not None and npc.is_npc and not npc.retired else None


def _started(state: SessionState, e: ev.SessionStarted) -> None:
    state.session_id, state.title, state.creator = e.session_id, e.title, e.gm
    state.manual_dice_allowed = e.manual_dice_allowed


def _joined(state: SessionState, e: ev.PlayerJoined) -> None:
    state.members[e.name] = Member(e.name, e.role, e.client_seed)


def _committed(state: SessionState, e: ev.SeedCommitted) -> None:
    state.epochs.append(Epoch(e.epoch, e.commitment, e.algorithm))


def _requested(state: SessionState, e: ev.RollRequested) -> None:
    state.rolls[e.roll_id] = Roll(e)
    for side in (e.side, e.opponent):
        if side is not None and side.name not in state.members:
            state.npc_names.add(side.name)
    if e.replaces is not None and e.replaces in state.rolls:
        state.rolls[e.replaces].replaced_by = e.roll_id
    state.next_nonce = e.nonce + 1
    epoch = state.epochs[e.epoch - 1]
    if epoch.first_nonce is None:
        epoch.first_nonce = e.nonce
    if e.action_id not in state.actions:
        scope = RerollScope(e.reroll_scope)
        state.actions[e.action_id] = Action(e.action_id, e.roller, e.rerolls_granted, scope)


def _die_event(state: SessionState, e: ev.DiceRolled | ev.DieExploded | ev.DieRerolled) -> None:
    roll = state.rolls[e.roll_id]
    roll.dice.append(e)
    # Rerolls of the request's side spend its action's allowance; an opposed check's
    # other side spends its own (RollRequested.opponent_rerolls_granted), counted on the roll.
    if isinstance(e, ev.DieRerolled) and e.side == 0:
        state.actions[roll.request.action_id].spent += 1
    # Rerolls, and fresh rounds a later command rolls, take nonces of their own.
    records = e.dice if isinstance(e, ev.DiceRolled) else (e.die,)
    for record in records[:1]:
        state.next_nonce = max(state.next_nonce, record.nonce + 1)


def _tied(state: SessionState, e: ev.OpposedCheckTied) -> None:
    state.rolls[e.roll_id].ties.append(e)


def _accepted(state: SessionState, e: ev.RollAccepted) -> None:
    state.rolls[e.roll_id].accepts.append(e)


def _resolved(state: SessionState, e: ev.RollResolved | ev.CheckResolved) -> None:
    state.rolls[e.roll_id].resolution = e


def _disputed(state: SessionState, e: ev.RollDisputed) -> None:
    state.rolls[e.roll_id].disputes.append(e)


def _ruled(state: SessionState, e: ev.DisputeResolved) -> None:
    state.rolls[e.roll_id].ruling = e


def _revealed(state: SessionState, e: ev.RollRevealed) -> None:
    state.rolls[e.roll_id].revealed = True


def _seed_revealed(state: SessionState, e: ev.SeedRevealed) -> None:
    state.epochs[e.epoch - 1].seed = e.seed


def _ended(state: SessionState, e: ev.SessionEnded) -> None:
    state.ended = True
    # A roll for the roller's eyes only is shown to all once the session is over.
    for roll in state.rolls.values():
        if roll.mode is RollMode.SELF:
            roll.revealed = True
    if e.ended_at is not None:
        ended_at = parse_timestamp(e.ended_at)
        state.disputes_until = ended_at + timedelta(seconds=e.dispute_window)


def _sheet_event(state: SessionState, version: int, e: ev.SheetEvent) -> None:
    match e:
        case ev.SheetRightsSet():
            state.sheets = e.sheets
        case ev.CharacterCreated():
            state.characters[e.character] = Character(e.character, e.owner)
        case ev.AttributeSet():
            entry = Entry(e.value, version, e.label)
            state.characters[e.character].attributes[e.name] = entry
        case ev.QualitySet():
            state.characters[e.character].qualities[e.name] = Entry(e.value, version)
        case ev.RollSaved():
            saved = SavedRoll(e.kind, e.expression, version)
            state.characters[e.character].saved[e.name] = saved
        case ev.CharacterRetired():
            state.characters[e.character].retired = True
        case _:
            assert_never(e)


def evolve(state: SessionState, version: int, event: ev.Event) -> SessionState:
    """Apply the event recorded at stream ``version``; it must be the next version."""
    if version != state.version + 1:
        raise CorruptLogError(f"event at version {version} does not follow version {state.version}")
    match event:
        case ev.SessionStarted():
            _started(state, event)
        case ev.PlayerJoined():
            _joined(state, event)
        case ev.SeedCommitted():
            _committed(state, event)
        case ev.RollRequested():
            _requested(state, event)
        case ev.DiceRolled() | ev.DieExploded() | ev.DieRerolled():
            _die_event(state, event)
        case ev.OpposedCheckTied():
            _tied(state, event)
        case ev.RollAccepted():
            _accepted(state, event)
        case ev.RollResolved() | ev.CheckResolved():
            _resolved(state, event)
        case ev.RollDisputed():
            _disputed(state, event)
        case ev.DisputeResolved():
            _ruled(state, event)
        case ev.RollRevealed():
            _revealed(state, event)
        case ev.SeedRevealed():
            _seed_revealed(state, event)
        case ev.SessionEnded():
            _ended(state, event)
        case (
            ev.SheetRightsSet()
            | ev.CharacterCreated()
            | ev.AttributeSet()
            | ev.QualitySet()
            | ev.RollSaved()
            | ev.CharacterRetired()
        ):
            _sheet_event(state, version, event)
        case _:
            assert_never(event)
    state.version = version
    return state


def replay(events: Iterable[tuple[int, ev.Event]]) -> SessionState:
    """Fold a stream's (version, event) pairs into a fresh state."""
    state = SessionState()
    for version, event in events:
        evolve(state, version, event)
    return state

"""Which command the log's next events are: each command recognised by its first event.

A reading rebuilds the command from the events (who acted, what they asked, when) for
decide to decide again. Where the log cannot say which of two honest commands wrote the
events (the default reroll policy at once, or the roller's own rerolls later; an accept, or
an end that closes waiting rolls), both readings are given, in order. A reading that
depends on how far a run of events goes waits until the run has ended.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import assert_never

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.dice.sources import Provenance
from diceledger.domain.errors import RollError
from diceledger.domain.hashchain import parse_timestamp
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.opposed import SIDES, side_roller, standing
from diceledger.domain.session.state import GM, SessionState
from diceledger.domain.verification.logged_dice import roll_run

# Events no command begins with, and where the rules put them instead.
NEVER_FIRST: dict[type[ev.Event], str] = {
    ev.SeedCommitted: "a seed epoch is committed only as a session starts or a seed is revealed",
    ev.DiceRolled: "dice are rolled only by the request or reroll they belong to",
    ev.DieExploded: "an explosion is rolled only with the die it explodes from",
    ev.OpposedCheckTied: "a tie is recorded only within its opposed check",
    ev.RollResolved: "a roll resolves only with its dice, a reroll, an accept or the end",
    ev.CheckResolved: "a check resolves only with its dice, a reroll, an accept or the end",
    ev.SessionEnded: "a session ends only right after its last seed is revealed",
}


@dataclass(frozen=True, slots=True)
class Reading:
    """The next events read as one command: who, what, when, and which roll's dice."""

    actor: str
    command: cmd.Command
    now: datetime | None = None
    roll_id: int | None = None
    run_from: int = 1  # where the roll's dice start among the events
    every_roll: bool = False  # the command draws dice for several rolls (the end)


class Gap(Enum):
    """A reading the events read so far cannot settle."""

    WAIT = "wait"  # more events may complete it
    CUT = "cut"  # the log ended inside it


def _request(
    head: ev.RollRequested, upcoming: Sequence[ev.Event], final: bool
) -> list[Reading | Gap] | None:
    faces = () if head.manual else None
    # A request that read sheets is decided again from what was typed: the values come
    # from the sheets as replayed, so a forged value differs from the one decided.
    typed = head.asked or tuple(s.expression for s in (head.side, head.opponent) if s)
    side = dataclasses.replace(head.side, expression=typed[0])
    if head.opponent is not None:
        opposed = cmd.RequestOpposed(
            side,
            dataclasses.replace(head.opponent, expression=typed[-1]),
            median=head.median,
            exploding=head.exploding,
            action_id=head.action_id,
            rerolls=head.rerolls_granted,
            reroll_scope=RerollScope(head.reroll_scope),
            opponent_rerolls=head.opponent_rerolls_granted,
            mode=RollMode(head.mode),
            label=head.label,
            salt=head.salt,
            faces=faces,
            rules_edition=head.rules_edition,
        )
        server = Reading(head.roller, opposed, roll_id=head.roll_id)
        rolled = _other_side_rolled(head, upcoming)
        if rolled is None and not final:
            return None
        if rolled:
            return [server]
        # Its other side's first round is not the request's: rolled by its own member, or
        # a side with no dice at all.
        own = dataclasses.replace(opposed, opponent_rolls=True)
        return [server, Reading(head.roller, own, roll_id=head.roll_id)]
    # A recorded DC goes through Target as a request would: an inconsistent one is refused.
    target = None if head.target is None else Target(head.target, head.dc_modifier, head.dc_label)
    dc_reference = next((r.name for r in head.references if r.use == "dc"), None)
    if dc_reference is not None:
        target = None
    elif target is None and (head.dc_modifier is not None or head.dc_label is not None):
        raise RollError(f"roll {head.roll_id} names a DC but no target")
    request = cmd.RequestRoll(
        RollKind(head.kind),
        side.expression,
        advantage=side.advantage,
        disadvantage=side.disadvantage,
        eased=side.eased,
        hindered=side.hindered,
        median=head.median,
        exploding=head.exploding,
        target=target,
        against=head.against,
        action_id=head.action_id,
        rerolls=head.rerolls_granted,
        reroll_scope=RerollScope(head.reroll_scope),
        mode=RollMode(head.mode),
        on_behalf_of=head.on_behalf_of,
        label=head.label,
        salt=head.salt,
        faces=faces,
        replaces=head.replaces,
        dc_reference=dc_reference,
        rules_edition=head.rules_edition,
    )
    _, complete = roll_run(upcoming, 1, head.roll_id, final)
    if not complete:
        return None  # the default policy's rerolls may still follow
    # Rerolls and a resolution right after a request are the default policy's (auto_reroll)
    # or the roller's next commands; both are honest readings, so both are tried.
    auto = dataclasses.replace(request, auto_reroll=True)
    return [
        Reading(head.roller, auto, roll_id=head.roll_id),
        Reading(head.roller, request, roll_id=head.roll_id),
    ]


def _other_side_rolled(head: ev.RollRequested, upcoming: Sequence[ev.Event]) -> bool | None:
    """Tell whether the request rolled its other side's first round (None: read on).

    The request's side's dice come first; then, if the request rolled it, the other side's
    under the request's nonce.
    """
    for event in upcoming[1:]:
        if not isinstance(event, ev.DiceRolled | ev.DieExploded) or event.roll_id != head.roll_id:
            return False
        if (event.side, event.round) != (0, 1):
            return (
                isinstance(event, ev.DiceRolled)
                and (event.side, event.round) == (1, 1)
                and bool(event.dice)
                and event.dice[0].nonce == head.nonce
            )
    return None


def _own_side(state: SessionState, head: ev.DiceRolled) -> Reading | None:
    """Read dice that begin a command as a side's own roll of an opposed check waiting for it."""
    roll = state.rolls.get(head.roll_id)
    if roll is None or roll.resolution is not None or roll.request.opponent is None:
        return None
    check = standing(state, roll)
    if not check.awaits_dice or (check.turn, check.round) != (head.side, head.round):
        return None
    request = roll.request
    typed = any(d.source == Provenance.MANUAL for d in head.dice)
    rolled = cmd.RollSide(head.roll_id, () if typed else None)
    return Reading(
        side_roller(state, request, head.side) or request.roller, rolled, None, head.roll_id, 0
    )


def _reroll(
    state: SessionState, head: ev.DieRerolled, upcoming: Sequence[ev.Event], final: bool
) -> Reading | None:
    """Read a reroll command: the dice it replaced, all drawn under the head's nonce."""
    nonce = head.die.nonce
    replaced = []
    for event in upcoming:
        if not isinstance(event, ev.DieRerolled | ev.DieExploded):
            break
        if event.roll_id != head.roll_id or event.die.nonce != nonce:
            break
        if isinstance(event, ev.DieRerolled):
            replaced.append(event.replaced)
    else:
        if not final:
            return None  # more dice of this command may follow
    faces = () if head.die.source == Provenance.MANUAL else None
    return Reading(
        _reroller(state, head),
        cmd.Reroll(head.roll_id, tuple(replaced), faces),
        None,
        head.roll_id,
        0,
    )


def _reroller(state: SessionState, head: ev.DieRerolled) -> str:
    """Return who rerolled: the roller, or for an opposed check's side, who rolls that side.

    The log does not name them; any GM may take an NPC's side, and the request's roller,
    a GM whenever an NPC is in the check, gives the same events.
    """
    roll = state.rolls.get(head.roll_id)
    if roll is None:
        return ""
    request = roll.request
    if request.opponent is None or head.side not in SIDES:
        return request.roller
    return side_roller(state, request, head.side) or request.roller


def _accept(
    state: SessionState, head: ev.RollAccepted, upcoming: Sequence[ev.Event], final: bool
) -> Reading | None:
    """Read an accept; of an opposed check, with the typed-in faces of a round it rolls."""
    roll = state.rolls.get(head.roll_id)
    if roll is None or roll.request.opponent is None:
        return Reading(head.by, cmd.Accept(head.roll_id))
    # The accept's round, if the check then ties, comes right after the tie.
    if len(upcoming) < 3 and not final:
        return None
    tied = upcoming[1] if len(upcoming) > 1 else None
    # The typist's faces go to their own side only (R6): a manual die on any side of the
    # fresh round shows the accept typed them.
    typed = isinstance(tied, ev.OpposedCheckTied) and any(
        d.source == Provenance.MANUAL for d in _round_dice(upcoming[2:], head.roll_id)
    )
    return Reading(head.by, cmd.Accept(head.roll_id, () if typed else None), None, head.roll_id)


def _round_dice(upcoming: Sequence[ev.Event], roll_id: int) -> list[ev.DieRecord]:
    """Return the dice of the round the events start with: its rolls and explosions, all
    under one nonce (a side rolled by its own member next has a nonce of its own)."""
    dice: list[ev.DieRecord] = []
    for event in upcoming:
        if not isinstance(event, ev.DiceRolled | ev.DieExploded) or event.roll_id != roll_id:
            break
        drawn = event.dice if isinstance(event, ev.DiceRolled) else (event.die,)
        if dice and drawn and drawn[0].nonce != dice[0].nonce:
            break
        dice += drawn
    return dice


def _end(upcoming: Sequence[ev.Event], start: int) -> Reading | Gap | None:
    """Read the events from ``start`` as the end, if they are one.

    Returns the reading, ``Gap.CUT`` when the events run out before the end's last two
    (SeedRevealed, SessionEnded), or None when another event shows they are no end.
    """
    for at in range(start, len(upcoming)):
        revealed = upcoming[at]
        ended = upcoming[at + 1] if at + 1 < len(upcoming) else None
        if isinstance(revealed, ev.SeedRevealed) and isinstance(ended, ev.SessionEnded):
            now = parse_timestamp(ended.ended_at) if ended.ended_at is not None else None
            command = cmd.EndSession(bytes.fromhex(revealed.seed), ended.dispute_window)
            return Reading(ended.by, command, now, every_roll=True)
        if ended is None and isinstance(revealed, ev.SeedRevealed):
            return Gap.CUT
        if not isinstance(revealed, CLOSING):
            return None
    return Gap.CUT


# What the end writes before its reveal: waiting rolls accepted and resolved, and the
# fresh rounds of an opposed check that then ties.
CLOSING = (
    ev.RollAccepted,
    ev.RollResolved,
    ev.CheckResolved,
    ev.OpposedCheckTied,
    ev.DiceRolled,
    ev.DieExploded,
)


def _decided_at(at: str | None) -> datetime | None:
    return parse_timestamp(at) if at is not None else None


def readings(
    state: SessionState, upcoming: Sequence[ev.Event], final: bool
) -> list[Reading | Gap] | None:
    """Return the readings of the next events as a command, to be tried in order.

    None until more events are read; an empty list when no command begins with the first.
    """
    head = upcoming[0]
    short = len(upcoming) < 2 and not final
    if isinstance(head, ev.SessionStarted):
        if len(upcoming) < 3 and not final:
            return None
        third = upcoming[2] if len(upcoming) > 2 else None
        commitment = third.commitment if isinstance(third, ev.SeedCommitted) else ""
        start = cmd.StartSession(head.session_id, head.title, commitment, head.manual_dice_allowed)
        carried, ended = _carried(head.gm, upcoming[3:])
        if not ended and not final:
            return None
        if not carried:
            return [Reading(head.gm, start)]
        # The GM's sheet commands right after the start may be the sheets it carried, or
        # commands of their own: the first reading that the rules give again is the one.
        with_sheets = dataclasses.replace(start, carried=carried)
        return [Reading(head.gm, with_sheets), Reading(head.gm, start)]
    if isinstance(head, ev.PlayerJoined):
        # A promotion keeps the client seed the player joined with; the command names none.
        known = state.members.get(head.name)
        kept = known is not None and known.client_seed == head.client_seed
        join = cmd.JoinSession(head.name, "" if kept else head.client_seed, head.role == GM)
        return [Reading(head.added_by, join)]
    if isinstance(head, ev.RollRequested):
        return _request(head, upcoming, final)
    if isinstance(head, ev.DieRerolled):
        reroll = _reroll(state, head, upcoming, final)
        return None if reroll is None else [reroll]
    if isinstance(head, ev.DiceRolled):
        own = _own_side(state, head)
        if own is None:
            return []
        # The end rolls a side still waiting for its member from the seed: the same first
        # event. An end is whole only through its reveal, so it is tried first.
        end = _end(upcoming, 0)
        if isinstance(end, Reading):
            return [end, own]
        if end is Gap.CUT:
            return [own, Gap.CUT] if final else None
        return [own]
    if isinstance(head, ev.RollAccepted):
        accept = _accept(state, head, upcoming, final)
        if accept is None:
            return None
        end = _end(upcoming, 0)
        if isinstance(end, Reading):
            return [accept, end]
        if end is Gap.CUT:  # perhaps an end that closes waiting rolls: wait for the rest
            return [accept, Gap.CUT if final else Gap.WAIT]
        return [accept]
    if isinstance(head, ev.SeedRevealed):
        if short:
            return None
        end = _end(upcoming, 0)
        if isinstance(end, Reading):
            return [end]
        following = upcoming[1] if len(upcoming) > 1 else None
        commitment = following.commitment if isinstance(following, ev.SeedCommitted) else ""
        return [Reading(head.by, cmd.RevealSeed(bytes.fromhex(head.seed), commitment))]
    if isinstance(head, ev.RollDisputed):
        dispute = cmd.OpenDispute(head.roll_id, head.reason)
        return [Reading(head.by, dispute, _decided_at(head.at))]
    if isinstance(head, ev.DisputeResolved):
        ruling = cmd.ResolveDispute(head.roll_id, cmd.Ruling(head.outcome), head.note)
        return [Reading(head.by, ruling, _decided_at(head.at))]
    if isinstance(head, ev.RollRevealed):
        return [Reading(head.by, cmd.RevealRoll(head.roll_id))]
    if isinstance(head, ev.SheetEvent):
        return [Reading(head.by, _sheet_command(head))]
    return []


CARRIED = (ev.CharacterCreated, ev.AttributeSet, ev.QualitySet, ev.RollSaved)


def _carried(gm: str, following: Sequence[ev.Event]) -> tuple[tuple[cmd.CarriedCommand, ...], bool]:
    """Return the GM's sheet commands that follow a start, and whether another event ends them."""
    carried: list[cmd.CarriedCommand] = []
    for event in following:
        if not isinstance(event, CARRIED) or event.by != gm:
            return tuple(carried), True
        command = _sheet_command(event)
        assert not isinstance(command, cmd.SetSheetRights | cmd.RetireCharacter)
        carried.append(command)
    return tuple(carried), False


def _sheet_command(head: ev.SheetEvent) -> cmd.SheetCommand:
    """Read a sheet event as the command that wrote it."""
    match head:
        case ev.SheetRightsSet():
            return cmd.SetSheetRights(head.sheets)
        case ev.CharacterCreated():
            return cmd.CreateCharacter(head.character, head.owner)
        case ev.AttributeSet():
            return cmd.SetAttribute(head.character, head.name, head.value, head.label)
        case ev.QualitySet():
            return cmd.SetQuality(head.character, head.name, head.value)
        case ev.RollSaved():
            return cmd.SaveRoll(head.character, head.name, RollKind(head.kind), head.expression)
        case ev.CharacterRetired():
            return cmd.RetireCharacter(head.character)
        case _:
            assert_never(head)

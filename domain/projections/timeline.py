"""The timeline fold: one line per event of a session, as a given viewer may see it.

Which blind rolls stay hidden is decided by the whole session (``hidden_from`` of
domain/session/visibility.py): a roll revealed later is shown in full from its first event
on; one never revealed shows to a viewer only as, say, "the GM rolled blind" or "Ann rolled
privately" (modes.hidden_text), with no faces or
totals.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import assert_never

from diceledger.domain.dice.request import DC_BASE
from diceledger.domain.hashchain import format_timestamp
from diceledger.domain.json import JsonObject
from diceledger.domain.projections.logged import Logged
from diceledger.domain.projections.sheet_lines import describe_sheet, sheet_values
from diceledger.domain.session import events as ev
from diceledger.domain.session.modes import RollMode, hidden_text
from diceledger.domain.session.opposed import typed_by
from diceledger.domain.session.state import Roll, SessionState, evolve
from diceledger.domain.session.views import roll_line

BLIND = hidden_text(RollMode.BLIND, "", roller_is_gm=True)  # a GM's blind roll, to a player


def hidden_line(state: SessionState, roll_id: int) -> str:
    """Return what a viewer who may not see roll ``roll_id`` reads of its request."""
    request = state.rolls[roll_id].request
    return hidden_text(RollMode(request.mode), request.roller, state.is_gm(request.roller))


# The event type of every line of a hidden roll after its request: the real types would
# tell a player how the dice fell (a DieExploded line means a die showed its maximum).
HIDDEN_EVENT = "Hidden"


@dataclass(frozen=True, slots=True)
class Line:
    """One event of the timeline: when, who, what, and the event's own fields."""

    position: int
    version: int
    recorded_at: datetime
    actor: str
    event: str
    roll_id: int | None
    hidden: bool
    text: str
    detail: JsonObject

    def as_json(self) -> JsonObject:
        """Return the line as the faces show it (replay --json, the HTTP replay and stream)."""
        return {
            "position": self.position,
            "version": self.version,
            "recorded_at": format_timestamp(self.recorded_at),
            "actor": self.actor,
            "event": self.event,
            "roll_id": self.roll_id,
            "hidden": self.hidden,
            "text": self.text,
            "detail": self.detail,
        }


def timeline(logged: Iterable[Logged], hidden: frozenset[int] = frozenset()) -> Iterator[Line]:
    """Yield a line per event, folding the session as it goes."""
    state = SessionState()
    for item in logged:
        evolve(state, item.version, item.event)
        yield line_of(state, item, hidden)


def line_of(state: SessionState, item: Logged, hidden: frozenset[int]) -> Line:
    """Return the line of one event, read against the state just after it.

    A hidden roll's events after its request are named HIDDEN_EVENT: their types alone
    would tell a player, say, that a die showed its maximum and exploded.
    """
    event = item.event
    roll_id = ev.roll_id_of(event)
    secret = roll_id in hidden
    requested = isinstance(event, ev.RollRequested)
    name = HIDDEN_EVENT if secret and not requested else type(event).__name__
    if roll_id is not None and secret:
        text = f"#{roll_id} {hidden_line(state, roll_id)}" if requested else f"#{roll_id}"
        detail: JsonObject = {"roll_id": roll_id}
    else:
        text = describe(state, event)
        detail = dataclasses.asdict(event)
        if isinstance(event, ev.RollResolved | ev.CheckResolved):
            detail["line"] = roll_line(state.rolls[event.roll_id])
    return Line(
        item.position,
        item.version,
        item.recorded_at,
        item.actor,
        name,
        roll_id,
        secret,
        text,
        detail,
    )


def _span(seconds: int) -> str:
    """Return a dispute window as people say it: in days, else hours, else seconds."""
    unit, count = "second", seconds
    for name, size in (("hour", 3600), ("day", 86400)):
        if seconds % size == 0:
            unit, count = name, seconds // size
    return f"{count} {unit}{'' if count == 1 else 's'}"


def describe(state: SessionState, event: ev.Event) -> str:
    """Return the human text of an event, read against the state just after it."""
    match event:
        case ev.SessionStarted():
            return f"session '{event.title}' started; GM {event.gm}"
        case ev.PlayerJoined():
            added = f" (added by {event.added_by})" if event.added_by != event.name else ""
            return f"{event.name} joined as {event.role}{added}"
        case ev.SeedCommitted():
            return f"seed epoch {event.epoch} committed: {event.commitment} ({event.algorithm})"
        case ev.SeedRevealed():
            return f"seed epoch {event.epoch} revealed by {event.by}: {event.seed}"
        case ev.SessionEnded():
            # A span, not a moment: the line's own time is shown in each reader's zone.
            window = f"; disputes taken for {_span(event.dispute_window)}"
            return f"session ended by {event.by}{window if event.dispute_window else ''}"
        case ev.RollRequested():
            return f"#{event.roll_id} {_request(event)}"
        case (
            ev.SheetRightsSet()
            | ev.CharacterCreated()
            | ev.AttributeSet()
            | ev.QualitySet()
            | ev.RollSaved()
            | ev.CharacterRetired()
        ):
            return describe_sheet(event)
        case _:
            return f"#{event.roll_id} {_roll_event(state, state.rolls[event.roll_id], event)}"


def _request(e: ev.RollRequested) -> str:
    if e.opponent is not None:
        text = f"opposed: {_side(e.side)} vs {_side(e.opponent)}"
    else:
        text = f"{e.on_behalf_of} {e.kind} {_side(e.side, named=False)}"
    if e.target is not None:
        text += f" vs {e.target}"
        if e.dc_modifier is not None:
            text += f" (DC {DC_BASE}{e.dc_modifier:+d}{' ' + e.dc_label if e.dc_label else ''})"
    if e.against:
        text += f" against {e.against}"
    if e.references:
        text += f" (sheet: {sheet_values(e.references)})"
    extras = [
        "median" if e.median else "",
        "no explosions" if not e.exploding else "",
        f"{e.rerolls_granted} {e.reroll_scope} rerolls" if e.rerolls_granted else "",
        (
            f"{e.opponent.name} {e.opponent_rerolls_granted} rerolls"
            if e.opponent and e.opponent_rerolls_granted
            else ""
        ),
        e.mode if e.mode != RollMode.PUBLIC else "",
        "typed-in dice" if e.manual else "",
        f"by {e.roller}" if e.roller != e.on_behalf_of else "",
        f"'{e.label}'" if e.label else "",
        f"replaces #{e.replaces}" if e.replaces else "",
    ]
    shown = [extra for extra in extras if extra]
    return text + (f" [{', '.join(shown)}]" if shown else "")


def _side(side: ev.CheckSide, named: bool = True) -> str:
    text = f"{side.name} {side.expression}" if named else side.expression
    for word, amounts in (
        ("adv", side.advantage),
        ("dis", side.disadvantage),
        ("eased", side.eased),
        ("hindered", side.hindered),
    ):
        for amount in amounts:
            text += f" {word} {amount.amount}" + (f" ({amount.label})" if amount.label else "")
    return text


def _roll_event(state: SessionState, roll: Roll, event: ev.RollFollowUp) -> str:
    match event:
        case ev.DiceRolled():
            dice = ", ".join(f"d{d.sides} {d.face}" for d in event.dice)
            typed = _typed(state, roll, event.side, event.dice)
            return f"{_where(roll, event.side, event.round)}dice: {dice}{typed}"
        case ev.DieExploded():
            chain = " -> ".join(f"d{d.sides} {d.face}" for d in _chain(roll, event))
            typed = _typed(state, roll, event.side, (event.die,))
            return f"{_where(roll, event.side, event.round)}explosion: {chain}{typed}"
        case ev.DieRerolled():
            old = _find(roll, event.replaced, event.side, event.round)
            was = f"d{old.sides} {old.face}" if old else f"die {event.replaced}"
            where = _where(roll, event.side, event.round)
            typed = _typed(state, roll, event.side, (event.die,))
            return f"{where}reroll: {was} -> d{event.die.sides} {event.die.face}{typed}"
        case ev.RollAccepted():
            where = _where(roll, event.side, event.round)
            return f"{where}accepted by {event.by} ({event.rerolls_left} rerolls left)"
        case ev.OpposedCheckTied():
            return f"round {event.round} tied at {event.total}; both roll again"
        case ev.RollResolved():
            return f"{roll_line(roll)}"
        case ev.CheckResolved():
            return _resolution(roll, event)
        case ev.RollDisputed():
            return f"disputed by {event.by}: {event.reason}"
        case ev.DisputeResolved():
            note = f": {event.note}" if event.note else ""
            return f"dispute ruled {event.outcome} by {event.by}{note}"
        case ev.RollRevealed():
            return f"{roll.mode} roll revealed by {event.by}"
        case _:
            assert_never(event)


def _resolution(roll: Roll, event: ev.CheckResolved) -> str:
    if event.winner is not None:
        rounds = f" after {event.rounds} rounds" if event.rounds > 1 else ""
        return f"{roll_line(roll)}; {event.winner} wins{rounds}"
    verdict = "success" if event.success else "failure"
    return f"{roll_line(roll).rsplit(': ', 1)[0]}: {verdict} (margin {event.margin:+d})"


def _typed(state: SessionState, roll: Roll, side: int, dice: Sequence[ev.DieRecord]) -> str:
    """Return who typed an opposed check's dice in, if they were: each side types its own (R6).

    A single roll's request already says its dice were typed in, and by whom.
    """
    if roll.request.opponent is None or not dice or dice[0].source != "manual":
        return ""
    return f" (typed in by {typed_by(state, roll, side, dice[0].nonce)})"


def _where(roll: Roll, side: int, round_: int) -> str:
    request = roll.request
    if request.opponent is None:
        return ""
    name = request.side.name if side == 0 else request.opponent.name
    return f"{name}, round {round_}, "


def _records(roll: Roll, side: int, round_: int) -> Iterator[ev.DieRecord]:
    for e in roll.dice:
        if (e.side, e.round) != (side, round_):
            continue
        if isinstance(e, ev.DiceRolled):
            yield from e.dice
        else:
            yield e.die


def _find(roll: Roll, index: int | None, side: int, round_: int) -> ev.DieRecord | None:
    # The latest record with that index: a reroll's new die takes a fresh index, so this
    # is the die as it stood.
    found = None
    for record in _records(roll, side, round_):
        if record.index == index:
            found = record
    return found


def _chain(roll: Roll, event: ev.DieExploded) -> list[ev.DieRecord]:
    # The base die, then its explosion dice up to this one (R12: each added die is its own
    # event, so the chain so far is shown with each).
    base = _find(roll, event.die.parent, event.side, event.round)
    links = [
        record
        for record in _records(roll, event.side, event.round)
        if record.reason == "explosion"
        and record.parent == event.die.parent
        and record.step <= event.die.step
        and record.nonce == event.die.nonce
    ]
    return ([base] if base else []) + links

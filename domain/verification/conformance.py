"""Decide every command of a log again and compare: only what the rules could have written.

A session's log is a run of commands, each appended as the events ``decide`` returned for
it. The log does not mark where one command ends, so each command is recognised by its
first event, rebuilt from the log, and decided again by ``decide`` itself on the state the
events before it fold to, with the faces the log recorded handed back in place of fresh
dice. A command an honest run could have appended gives back exactly the log's next
events. Otherwise the refusal ``decide`` raises (who may act, allowances, order, epochs,
nonces, replaced rolls, text limits), or the first event that differs, is the violation.

Two things are taken as the log gives them, because no rule decides them: which dice a
roller chose to reroll, and how long a GM left disputes open after the end. Look-alike
member names are not judged again: the confusables table grows with Unicode.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from diceledger.domain.dice.sources import DiceSource, Draw, Provenance
from diceledger.domain.errors import DiceledgerError, DiceSourceError
from diceledger.domain.hashchain import parse_timestamp
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.state import GM, SessionState

ROLL_EVENTS = (
    ev.DiceRolled,
    ev.DieExploded,
    ev.DieRerolled,
    ev.OpposedCheckTied,
    ev.RollResolved,
    ev.CheckResolved,
)
# Events no command begins with, and where the rules put them instead.
_NEVER_FIRST: dict[type[ev.Event], str] = {
    ev.SeedCommitted: "a seed epoch is committed only as a session starts or a seed is revealed",
    ev.DiceRolled: "dice are rolled only by the request or reroll they belong to",
    ev.DieExploded: "an explosion is rolled only with the die it explodes from",
    ev.OpposedCheckTied: "a tie is recorded only within its opposed check",
    ev.RollResolved: "a roll resolves only with its dice, a reroll, an accept or the end",
    ev.CheckResolved: "a check resolves only with its dice, a reroll, an accept or the end",
    ev.SessionEnded: "a session ends only right after its last seed is revealed",
}


@dataclass(frozen=True, slots=True)
class Matched:
    """The next ``count`` events are exactly what one command gives."""

    count: int


@dataclass(frozen=True, slots=True)
class Violation:
    """The command starting the events breaks a rule, shown by the event at ``at``."""

    at: int
    reason: str


class _NeedMore(Exception):
    """The events read so far end inside the command being matched."""


class LoggedDiceError(DiceSourceError):
    """The log's dice are not the ones the rules draw; ``at`` is the event showing it."""

    def __init__(self, at: int, message: str) -> None:
        super().__init__(message)
        self.at = at


Run = list[tuple[int, ev.DieRecord]]


class _LoggedDice:
    """Hand back a command's recorded dice in order, as a dice source."""

    def __init__(self, run: Run, complete: bool, last: int, what: str) -> None:
        self._run, self._complete, self._last, self._what = run, complete, last, what
        self._used = 0

    def draw(self, sides: int) -> Draw:
        """Return the next recorded die; it must be the size the rules ask for."""
        if self._used >= len(self._run):
            if not self._complete:
                raise _NeedMore
            raise LoggedDiceError(
                self._last,
                f"the rules draw die {self._used + 1} (a d{sides}) {self._what}, the log has none",
            )
        at, record = self._run[self._used]
        if record.sides != sides:
            raise LoggedDiceError(
                at,
                f"die {record.index} is recorded as a d{record.sides}, the rules ask for "
                f"a d{sides}",
            )
        if not 1 <= record.face <= sides:
            raise LoggedDiceError(at, f"die {record.index} shows {record.face}, not on a d{sides}")
        self._used += 1
        return Draw(sides, record.face, Provenance(record.source), record.block, record.word)


@dataclass(frozen=True, slots=True)
class _Attempt:
    """One reading of the log's next events as a command: who, what, when, which roll."""

    actor: str
    command: cmd.Command
    now: datetime | None = None
    roll_id: int | None = None
    run_from: int = 1


def _never_alike(name: str, other: str) -> bool:
    return False


def _roll_run(
    upcoming: Sequence[ev.Event], start: int, roll_id: int, final: bool
) -> tuple[Run, bool]:
    """Return the dice of the roll's events from ``start`` on, and whether the run ended."""
    run: Run = []
    for at in range(start, len(upcoming)):
        event = upcoming[at]
        if not isinstance(event, ROLL_EVENTS) or event.roll_id != roll_id:
            return run, True
        if isinstance(event, ev.DiceRolled):
            run += [(at, die) for die in event.dice]
        elif isinstance(event, ev.DieExploded | ev.DieRerolled):
            run.append((at, event.die))
    return run, final


def _context(attempt: _Attempt, upcoming: Sequence[ev.Event], final: bool) -> Context:
    if attempt.roll_id is None:
        return Context(attempt.actor, now=attempt.now, lookalike=_never_alike)
    run, complete = _roll_run(upcoming, attempt.run_from, attempt.roll_id, final)
    last = run[-1][0] if run else 0

    def seeded(nonce: int, client_seed: str, salt: str) -> DiceSource:
        dice = [(at, d) for at, d in run if d.source == Provenance.SEEDED and d.nonce == nonce]
        return _LoggedDice(dice, complete, last, f"under nonce {nonce}")

    def typed(faces: tuple[int, ...]) -> DiceSource:
        dice = [(at, d) for at, d in run if d.source == Provenance.MANUAL]
        return _LoggedDice(dice, complete, last, "typed in")

    return Context(attempt.actor, seeded, attempt.now, typed, _never_alike)


def _request(
    head: ev.RollRequested, upcoming: Sequence[ev.Event], final: bool
) -> list[_Attempt] | None:
    faces = () if head.manual else None
    side = head.side
    if head.opponent is not None:
        opposed = cmd.RequestOpposed(
            side,
            head.opponent,
            median=head.median,
            exploding=head.exploding,
            action_id=head.action_id,
            blind=head.blind,
            label=head.label,
            salt=head.salt,
            faces=faces,
        )
        return [_Attempt(head.roller, opposed, roll_id=head.roll_id)]
    request = cmd.RequestRoll(
        head.kind,
        side.expression,
        advantage=side.advantage,
        disadvantage=side.disadvantage,
        eased=side.eased,
        hindered=side.hindered,
        median=head.median,
        exploding=head.exploding,
        target=head.target,
        dc_modifier=head.dc_modifier,
        dc_label=head.dc_label,
        against=head.against,
        action_id=head.action_id,
        rerolls=head.rerolls_granted,
        reroll_scope=head.reroll_scope,
        blind=head.blind,
        on_behalf_of=head.on_behalf_of,
        label=head.label,
        salt=head.salt,
        faces=faces,
        replaces=head.replaces,
    )
    _, complete = _roll_run(upcoming, 1, head.roll_id, final)
    if not complete:
        return None  # the default policy's rerolls may still follow
    # Rerolls and a resolution right after a request are the default policy's (auto_reroll)
    # or the roller's next commands; both are honest readings, so both are tried.
    auto = dataclasses.replace(request, auto_reroll=True)
    attempts = [_Attempt(head.roller, auto, roll_id=head.roll_id)]
    attempts.append(_Attempt(head.roller, request, roll_id=head.roll_id))
    return attempts


def _reroll(
    state: SessionState, head: ev.DieRerolled, upcoming: Sequence[ev.Event], final: bool
) -> _Attempt | None:
    """Read a reroll command: the dice it replaced, all drawn under the head's nonce."""
    roll = state.rolls.get(head.roll_id)
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
    actor = roll.request.roller if roll is not None else ""
    return _Attempt(actor, cmd.Reroll(head.roll_id, tuple(replaced), faces), None, head.roll_id, 0)


_CUT = "the log ends inside the command that begins here"


def _end(upcoming: Sequence[ev.Event], start: int) -> _Attempt | str | None:
    """Read the events from ``start`` as the end, if they are one.

    Returns the reading, ``_CUT`` when the events run out before the end's last two
    (SeedRevealed, SessionEnded), or None when another event shows they are no end.
    """
    for at in range(start, len(upcoming)):
        revealed = upcoming[at]
        ended = upcoming[at + 1] if at + 1 < len(upcoming) else None
        if isinstance(revealed, ev.SeedRevealed) and isinstance(ended, ev.SessionEnded):
            now = parse_timestamp(ended.ended_at) if ended.ended_at is not None else None
            command = cmd.EndSession(bytes.fromhex(revealed.seed), ended.dispute_window)
            return _Attempt(ended.by, command, now)
        if ended is None and isinstance(revealed, ev.SeedRevealed):
            return _CUT
        if not isinstance(revealed, ev.RollAccepted | ev.RollResolved | ev.CheckResolved):
            return None
    return _CUT


def _decided_at(at: str | None) -> datetime | None:
    return parse_timestamp(at) if at is not None else None


def _attempts(
    state: SessionState, upcoming: Sequence[ev.Event], final: bool
) -> list[_Attempt] | None:
    """Return the readings of the next events as a command; None until more are read."""
    head = upcoming[0]
    short = len(upcoming) < 2 and not final
    if isinstance(head, ev.SessionStarted):
        if len(upcoming) < 3 and not final:
            return None
        third = upcoming[2] if len(upcoming) > 2 else None
        commitment = third.commitment if isinstance(third, ev.SeedCommitted) else ""
        start = cmd.StartSession(head.session_id, head.title, commitment, head.manual_dice_allowed)
        return [_Attempt(head.gm, start)]
    if isinstance(head, ev.PlayerJoined):
        join = cmd.JoinSession(head.name, head.client_seed, head.role == GM)
        return [_Attempt(head.added_by, join)]
    if isinstance(head, ev.RollRequested):
        return _request(head, upcoming, final)
    if isinstance(head, ev.DieRerolled):
        reroll = _reroll(state, head, upcoming, final)
        return None if reroll is None else [reroll]
    if isinstance(head, ev.RollAccepted):
        accept = _Attempt(head.by, cmd.Accept(head.roll_id))
        end = _end(upcoming, 0)
        if isinstance(end, _Attempt):
            return [accept, end]
        if end is _CUT:  # perhaps an end that closes waiting rolls: wait for the rest of it
            return [accept, _WAIT if not final else _CUT_SHORT]
        return [accept]
    if isinstance(head, ev.SeedRevealed):
        if short:
            return None
        end = _end(upcoming, 0)
        if isinstance(end, _Attempt):
            return [end]
        following = upcoming[1] if len(upcoming) > 1 else None
        commitment = following.commitment if isinstance(following, ev.SeedCommitted) else ""
        return [_Attempt(head.by, cmd.RevealSeed(bytes.fromhex(head.seed), commitment))]
    if isinstance(head, ev.RollDisputed):
        dispute = cmd.OpenDispute(head.roll_id, head.reason)
        return [_Attempt(head.by, dispute, _decided_at(head.at))]
    if isinstance(head, ev.DisputeResolved):
        ruling = cmd.ResolveDispute(head.roll_id, head.outcome, head.note)
        return [_Attempt(head.by, ruling, _decided_at(head.at))]
    if isinstance(head, ev.RollRevealed):
        return [_Attempt(head.by, cmd.RevealRoll(head.roll_id))]
    return []


# Stand for a reading that needs more of the log before it can be tried, and for one
# the log ended before.
_WAIT = _Attempt("", cmd.Accept(0))
_CUT_SHORT = _Attempt("", cmd.Accept(0))


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _where(event: ev.Event) -> str:
    name = type(event).__name__
    roll_id = getattr(event, "roll_id", None)
    text = name if roll_id is None else f"{name} of roll {roll_id}"
    die = getattr(event, "die", None)
    return text + (f" (die {die.index})" if isinstance(die, ev.DieRecord) else "")


def _first_difference(logged: object, expected: object, path: str) -> str | None:
    if logged == expected:
        return None
    if (
        dataclasses.is_dataclass(logged)
        and not isinstance(logged, type)
        and type(logged) is type(expected)
    ):
        for field in dataclasses.fields(logged):
            inner = _first_difference(
                getattr(logged, field.name), getattr(expected, field.name), f"{path}.{field.name}"
            )
            if inner is not None:
                return inner
    if isinstance(logged, tuple) and isinstance(expected, tuple) and len(logged) == len(expected):
        for index, (a, b) in enumerate(zip(logged, expected, strict=True)):
            inner = _first_difference(a, b, f"{path}[{index}]")
            if inner is not None:
                return inner
    return f"{path.lstrip('.')} is {_shown(logged)}, the rules give {_shown(expected)}"


def difference(logged: ev.Event, expected: ev.Event) -> str:
    """Describe how a logged event differs from the one the rules give in its place."""
    if type(logged) is not type(expected):
        return f"the log has a {_where(logged)}, the rules give a {_where(expected)} here"
    return f"{_where(logged)}: {_first_difference(logged, expected, '')}"


def _compare(
    events: list[ev.Event], upcoming: Sequence[ev.Event], final: bool
) -> Matched | Violation | None:
    for at, expected in enumerate(events):
        if at >= len(upcoming):
            if not final:
                return None
            return Violation(
                len(upcoming) - 1, f"the log ends before the {_where(expected)} the rules give"
            )
        if upcoming[at] != expected:
            return Violation(at, difference(upcoming[at], expected))
    return Matched(len(events))


def _try(
    state: SessionState, attempt: _Attempt, upcoming: Sequence[ev.Event], final: bool
) -> Matched | Violation | None:
    head = type(upcoming[0]).__name__
    try:
        events = decide(state, attempt.command, _context(attempt, upcoming, final))
    except _NeedMore:
        return None
    except LoggedDiceError as error:
        return Violation(error.at, f"{head}: {error}")
    except (DiceledgerError, LookupError, ValueError, TypeError, ArithmeticError) as error:
        return Violation(0, f"{head} breaks the rules: {error}")
    return _compare(events, upcoming, final)


def match_command(
    state: SessionState, upcoming: Sequence[ev.Event], final: bool
) -> Matched | Violation | None:
    """Match the log's next events against one command decided again on ``state``.

    Returns None when the events so far end inside the command (read more, or call again
    with ``final`` once the log has ended).
    """
    head = upcoming[0]
    try:
        attempts = _attempts(state, upcoming, final)
    except ValueError as error:  # a revealed seed that is not hex, a time that is no time
        return Violation(0, f"{type(head).__name__} breaks the rules: {error}")
    if attempts is None:
        return None
    if not attempts:
        reason = _NEVER_FIRST.get(type(head), "no command of the rules begins with it")
        return Violation(0, f"{_where(head)} out of place: {reason}")
    violations: list[Violation] = []
    for attempt in attempts:
        if attempt is _WAIT:
            return None
        if attempt is _CUT_SHORT:
            return Violation(len(upcoming) - 1, _CUT)
        outcome = _try(state, attempt, upcoming, final)
        if outcome is None:
            return None
        if isinstance(outcome, Matched):
            return outcome
        violations.append(outcome)
    # The reading that matched the most events is the closest to an honest one.
    return max(violations, key=lambda v: v.at)

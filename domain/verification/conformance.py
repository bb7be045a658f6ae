"""Decide every command of a log again and compare: only what the rules could have written.

A session's log is a run of commands, each appended as the events ``decide`` returned for
it. The log does not mark where one command ends, so each command is recognised by its
first event and rebuilt from the log (``readings``), then decided again by ``decide``
itself on the state the events before it fold to, with the faces the log recorded handed
back in place of fresh dice (``logged_dice``). A command an honest run could have
appended gives back exactly the log's next events. Otherwise the refusal ``decide``
raises (who may act, allowances, order, epochs, nonces, replaced rolls, text limits), or
the first event that differs, is the violation.

Two things are taken as the log gives them, because no rule decides them: which dice a
roller chose to reroll, and how long a GM left disputes open after the end. Look-alike
member names are not judged again: the confusables table grows with Unicode.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from diceledger.domain.errors import DiceledgerError
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.state import SessionState
from diceledger.domain.verification.logged_dice import LoggedDiceError, NeedMore, dice_factories
from diceledger.domain.verification.readings import NEVER_FIRST, Gap, Reading, readings

CUT = "the log ends inside the command that begins here"


@dataclass(frozen=True, slots=True)
class Matched:
    """The next ``count`` events are exactly what one command gives."""

    count: int


@dataclass(frozen=True, slots=True)
class Violation:
    """The command starting the events breaks a rule, shown by the event at ``at``."""

    at: int
    reason: str


def _never_alike(name: str, other: str) -> bool:
    return False


def _context(reading: Reading, upcoming: Sequence[ev.Event], final: bool) -> Context:
    if reading.roll_id is None and not reading.every_roll:
        return Context(reading.actor, now=reading.now, lookalike=_never_alike)
    seeded, typed = dice_factories(upcoming, reading.run_from, reading.roll_id, final)
    return Context(reading.actor, seeded, reading.now, typed, _never_alike)


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


def _shown_apart(event: ev.Event) -> ev.Event:
    """Return the event without what is only shown: a resolution's ``detail``.

    ``detail`` is the text the service rendered when it resolved the roll; rendering is
    free to change between releases, and every face renders the roll afresh from its dice,
    so it is hashed and kept but not decided again (docs/verification.md).
    """
    if isinstance(event, ev.RollResolved | ev.CheckResolved):
        return dataclasses.replace(event, detail="")
    return event


def _compare(
    events: list[ev.Event], upcoming: Sequence[ev.Event], final: bool
) -> Matched | Violation | None:
    for at, decided in enumerate(events):
        expected = _shown_apart(decided)
        if at >= len(upcoming):
            if not final:
                return None
            return Violation(
                len(upcoming) - 1, f"the log ends before the {_where(expected)} the rules give"
            )
        logged = _shown_apart(upcoming[at])
        if logged != expected:
            return Violation(at, difference(logged, expected))
    return Matched(len(events))


def _try(
    state: SessionState, reading: Reading, upcoming: Sequence[ev.Event], final: bool
) -> Matched | Violation | None:
    head = type(upcoming[0]).__name__
    try:
        events = decide(state, reading.command, _context(reading, upcoming, final))
    except NeedMore:
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
        found = readings(state, upcoming, final)
    except (ValueError, DiceledgerError) as error:  # a seed not hex, a DC not 10 + MOD, ...
        return Violation(0, f"{type(head).__name__} breaks the rules: {error}")
    if found is None:
        return None
    if not found:
        reason = NEVER_FIRST.get(type(head), "no command of the rules begins with it")
        return Violation(0, f"{_where(head)} out of place: {reason}")
    violations: list[Violation] = []
    for reading in found:
        if reading is Gap.WAIT:
            return None
        if reading is Gap.CUT:
            return Violation(len(upcoming) - 1, CUT)
        outcome = _try(state, reading, upcoming, final)
        if outcome is None:
            return None
        if isinstance(outcome, Matched):
            return outcome
        violations.append(outcome)
    # The reading that matched the most events is the closest to an honest one.
    return max(violations, key=lambda v: v.at)

"""Human lines for the answers of session and roll commands."""

from __future__ import annotations

import re
from dataclasses import replace

import click

from diceledger.cli.output import shown, style, verdict
from diceledger.domain.dice.render import render_roll
from diceledger.domain.json import JsonObject
from diceledger.domain.session import events as ev
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.rolls import replay_rounds
from diceledger.domain.session.views import roll_line
from diceledger.infra.app.results import HiddenRoll, SeenRoll, ShownRoll


def _escaped(sources: tuple[ev.Amount, ...]) -> tuple[ev.Amount, ...]:
    return tuple(replace(a, label=shown(a.label)) if a.label else a for a in sources)


def _escaped_side(side: ev.CheckSide) -> ev.CheckSide:
    eased, hindered = _escaped(side.eased), _escaped(side.hindered)
    return replace(side, name=shown(side.name), eased=eased, hindered=hindered)


def _printable(seen: ShownRoll) -> ShownRoll:
    """Return a copy of the roll whose printed text (names, Eased/Hindered labels) is escaped.

    The dice are styled while the line is built, so user text is escaped before, not
    after; notation labels are printable by the grammar.
    """
    roll = seen.roll
    request = roll.request
    opponent = _escaped_side(request.opponent) if request.opponent else None
    side = _escaped_side(request.side)
    return replace(seen, roll=replace(roll, request=replace(request, side=side, opponent=opponent)))


def roll_text(seen: SeenRoll) -> str:
    """Return one or two lines: who rolled what, every die, and the outcome."""
    if isinstance(seen, HiddenRoll):
        return f"#{seen.roll_id}: {seen.text}"  # who rolled, in which mode: not what or why
    session_id = shown(seen.session_id)
    seen = _printable(seen)
    roll = seen.roll
    request = roll.request
    head = f"#{roll.roll_id} {shown(request.on_behalf_of)} {request.kind}"
    if request.label:
        head += f" ({shown(request.label)})"
    if roll.mode is not RollMode.PUBLIC:
        head += f" [{roll.mode}]" if roll.hidden else f" [{roll.mode}, revealed]"
    resolution = roll.resolution
    if request.opponent is not None:
        return _opposed_text(head, seen)
    line = roll_line(roll, style())
    if resolution is None:
        if request.target is not None:
            line = line.rsplit(": ", 1)[0]  # no verdict while the roll is still open (R11)
        return (
            f"{head}: {line}\n  awaiting rerolls: {seen.rerolls_left} left "
            f"({seen.reroll_scope.value}); `diceledger reroll {session_id} "
            f"{roll.roll_id} --die N` or `diceledger accept {session_id} {roll.roll_id}`"
        )
    if request.target is not None:
        success = getattr(resolution, "success", None)
        line = line.rsplit(": ", 1)[0] + ": " + verdict(success)
    if roll.voided:
        line += "  (void)"
    return f"{head}: {line}"


def _opposed_text(head: str, seen: ShownRoll) -> str:
    roll = seen.roll
    request, resolution = roll.request, roll.resolution
    assert request.opponent is not None
    lines = [f"{head} vs {request.opponent.name}:"]
    rounds = replay_rounds(roll)
    for number, (first, second) in enumerate(rounds, start=1):
        # The round still being played is not compared yet: a side may reroll.
        compared = resolution is not None or number < len(rounds)
        if second is None:
            other, tie = "yet to roll their own dice", ""
        else:
            other = render_roll(second, style())
            tie = ": tie" if compared and first.total == second.total else ""
        lines.append(
            f"  round {number}: {request.side.name} {render_roll(first, style())}, "
            f"{request.opponent.name} {other}{tie}"
        )
    if resolution is not None:
        count = getattr(resolution, "rounds", 1)
        after = f" after {count} rounds" if count > 1 else ""
        lines.append(f"  {shown(getattr(resolution, 'winner', None))} wins{after}")
    elif seen.waiting_for is not None and seen.awaits_dice:
        session_id = shown(seen.session_id)
        lines.append(
            f"  awaiting {shown(seen.waiting_for)}'s own dice: "
            f"`diceledger roll-side {session_id} {roll.roll_id} [--faces N,...]`"
        )
    elif seen.waiting_for is not None:
        session_id = shown(seen.session_id)
        lines.append(
            f"  awaiting {shown(seen.waiting_for)}'s rerolls: {seen.rerolls_left} left "
            f"({seen.reroll_scope.value}); `diceledger reroll {session_id} {roll.roll_id} "
            f"--die N` or `diceledger accept {session_id} {roll.roll_id}`"
        )
    return "\n".join(lines)


def echo_lines(lines: list[str]) -> None:
    """Print each line."""
    for line in lines:
        click.echo(line)


_ROUND = re.compile(r"; (?=round [0-9]+: )")


def view_text(view: JsonObject) -> str:
    """Return ``roll_text``'s lines for a roll a server answered with: built from its view.

    The view carries the plain line the server rendered (``line``) and every fact the head
    and the outcome need, so the text reads as the local one does, without the styling of
    single dice (and without the reroll scope, which the view does not carry).
    """
    roll_id = view.get("roll_id")
    if view.get("status") == "hidden":
        return f"#{roll_id}: the GM rolled blind"
    session_id = shown(str(view.get("session_id")))
    head = f"#{roll_id} {shown(str(view.get('for')))} {view.get('kind')}"
    if view.get("label"):
        head += f" ({shown(str(view['label']))})"
    if view.get("blind"):
        head += " [blind]" if view.get("hidden") else " [blind, revealed]"
    line = shown(str(view.get("line", "")))
    resolved = view.get("status") == "resolved"
    todo = (
        f"`diceledger reroll {session_id} {roll_id} --die N` or "
        f"`diceledger accept {session_id} {roll_id}`"
    )
    contestants = view.get("contestants")
    if isinstance(contestants, list) and len(contestants) == 2:
        other = contestants[1]
        name = shown(str(other.get("name"))) if isinstance(other, dict) else "?"
        lines = [f"{head} vs {name}:"]
        rounds = _ROUND.split(line)
        totals = view.get("round_totals")
        for number, text in enumerate(rounds, start=1):
            pair = totals[number - 1] if isinstance(totals, list) else None
            compared = resolved or number < len(rounds)
            tied = isinstance(pair, list) and len(pair) == 2 and pair[0] == pair[1]
            lines.append(f"  {text}{': tie' if compared and tied else ''}")
        if resolved:
            count = view.get("rounds")
            after = f" after {count} rounds" if isinstance(count, int) and count > 1 else ""
            lines.append(f"  {shown(str(view.get('winner')))} wins{after}")
        elif view.get("waiting_for") is not None:
            lines.append(
                f"  awaiting {shown(str(view['waiting_for']))}'s rerolls: "
                f"{view.get('rerolls_left')} left; {todo}"
            )
        return "\n".join(lines)
    has_target = view.get("target") is not None
    if not resolved:
        if has_target:
            line = line.rsplit(": ", 1)[0]  # no verdict while the roll is still open (R11)
        return f"{head}: {line}\n  awaiting rerolls: {view.get('rerolls_left')} left; {todo}"
    if has_target:
        success = view.get("success")
        line = (
            line.rsplit(": ", 1)[0] + ": " + verdict(success if isinstance(success, bool) else None)
        )
    if view.get("voided"):
        line += "  (void)"
    return f"{head}: {line}"

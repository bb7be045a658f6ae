"""Human lines for the answers of session and roll commands."""

from __future__ import annotations

from typing import Any

import click

from cli.output import style, verdict
from domain.session.state import Roll, SessionState
from domain.session.views import roll_line


def roll_text(session: SessionState, roll: Roll, viewer: str) -> str:
    """Return one or two lines: who rolled what, every die, and the outcome."""
    request = roll.request
    head = f"#{roll.roll_id} {request.on_behalf_of} {request.kind}"
    if request.label:
        head += f" ({request.label})"
    if roll.hidden and not session.is_gm(viewer):
        return f"{head}: the GM rolled blind"
    if request.blind:
        head += " [blind]" if roll.hidden else " [blind, revealed]"
    resolution = roll.resolution
    line = roll_line(roll, style())
    if request.opponent is not None and resolution is not None:
        winner = getattr(resolution, "winner", None)
        rounds = getattr(resolution, "rounds", 1)
        tail = f"{winner} wins" + (f" after {rounds} rounds" if rounds > 1 else "")
        return f"{head} vs {request.opponent.name}: {line}\n  {tail}"
    if resolution is None:
        action = session.actions[request.action_id]
        return (
            f"{head}: {line}\n  awaiting rerolls: {action.remaining} left "
            f"({action.scope.value}); `diceledger reroll {session.session_id} "
            f"{roll.roll_id} --die N` or `diceledger accept {session.session_id} {roll.roll_id}`"
        )
    if request.target is not None:
        success = getattr(resolution, "success", None)
        line = line.rsplit(": ", 1)[0] + ": " + verdict(success)
    if roll.voided:
        line += "  (void)"
    return f"{head}: {line}"


def echo_lines(lines: list[str]) -> None:
    """Print each line."""
    for line in lines:
        click.echo(line)


def members_text(session: SessionState) -> str:
    """Return the members as 'name (role)' separated by commas."""
    return ", ".join(f"{m.name} ({m.role})" for m in session.members.values())


def summary(session: SessionState) -> dict[str, Any]:
    """Return the one-line facts of a session for `session list`."""
    return {
        "session_id": session.session_id,
        "title": session.title,
        "gm": session.creator,
        "members": len(session.members),
        "rolls": len(session.rolls),
        "ended": session.ended,
    }

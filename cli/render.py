"""Human lines for the answers of session and roll commands."""

from __future__ import annotations

import click

from diceledger.cli.output import style, verdict
from diceledger.domain.dice.render import render_roll
from diceledger.domain.session.rolls import replay_rounds
from diceledger.domain.session.state import Roll, SessionState
from diceledger.domain.session.views import roll_line
from diceledger.infra.app.results import RollResult


def roll_text(result: RollResult) -> str:
    """Return one or two lines: who rolled what, every die, and the outcome."""
    roll, session_id = result.roll, result.session_id
    request = roll.request
    if roll.hidden and not result.viewer_is_gm:
        return f"#{roll.roll_id}: the GM rolled blind"  # not even for whom, or why
    head = f"#{roll.roll_id} {request.on_behalf_of} {request.kind}"
    if request.label:
        head += f" ({request.label})"
    if request.blind:
        head += " [blind]" if roll.hidden else " [blind, revealed]"
    resolution = roll.resolution
    if request.opponent is not None:
        return _opposed_text(head, roll)
    line = roll_line(roll, style())
    if resolution is None:
        if request.target is not None:
            line = line.rsplit(": ", 1)[0]  # no verdict while the roll is still open (R11)
        return (
            f"{head}: {line}\n  awaiting rerolls: {result.rerolls_left} left "
            f"({result.reroll_scope.value}); `diceledger reroll {session_id} "
            f"{roll.roll_id} --die N` or `diceledger accept {session_id} {roll.roll_id}`"
        )
    if request.target is not None:
        success = getattr(resolution, "success", None)
        line = line.rsplit(": ", 1)[0] + ": " + verdict(success)
    if roll.voided:
        line += "  (void)"
    return f"{head}: {line}"


def _opposed_text(head: str, roll: Roll) -> str:
    request, resolution = roll.request, roll.resolution
    assert request.opponent is not None
    lines = [f"{head} vs {request.opponent.name}:"]
    for number, (first, second) in enumerate(replay_rounds(roll), start=1):
        tie = ": tie" if first.total == second.total else ""
        lines.append(
            f"  round {number}: {request.side.name} {render_roll(first, style())}, "
            f"{request.opponent.name} {render_roll(second, style())}{tie}"
        )
    if resolution is not None:
        rounds = getattr(resolution, "rounds", 1)
        after = f" after {rounds} rounds" if rounds > 1 else ""
        lines.append(f"  {getattr(resolution, 'winner', None)} wins{after}")
    return "\n".join(lines)


def echo_lines(lines: list[str]) -> None:
    """Print each line."""
    for line in lines:
        click.echo(line)


def members_text(session: SessionState) -> str:
    """Return the members as 'name (role)' separated by commas."""
    return ", ".join(f"{m.name} ({m.role})" for m in session.members.values())

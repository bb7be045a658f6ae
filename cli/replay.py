"""``diceledger replay``: a session as it happened, or as it stood at a position or time."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.options import WholeNumber
from diceledger.cli.output import counted, local_time, shown
from diceledger.domain.hashchain import format_timestamp
from diceledger.domain.projections.timeline import Line


class MomentType(click.ParamType):
    """An ISO 8601 time; without a zone it is read as UTC."""

    name = "TIME"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        if isinstance(value, datetime):
            return value
        try:
            moment = datetime.fromisoformat(str(value))
            return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
        except (ValueError, OverflowError):  # OverflowError: year 1 or 9999 moved to UTC
            self.fail(
                f"'{shown(value)}' is not an ISO 8601 time like 2026-11-29T20:15:00Z", param, ctx
            )


@click.command("replay")
@click.argument("session_id", metavar="SESSION")
@click.option(
    "--until-position",
    type=WholeNumber(min=0),
    metavar="N",
    help="Stop after the event at store position N and show the state then.",
)
@click.option(
    "--at", "at", type=MomentType(), help="Stop at this time (ISO 8601) and show the state then."
)
@json_option
@pass_app
def replay(
    app: AppContext, session_id: str, until_position: int | None, at: datetime | None
) -> None:
    """Print a session as it happened: who rolled what, every die, outcomes, disputes, seeds.

    Explosions show as chains (d20 20 -> d12 3), rerolls as old -> new. Blind rolls show
    to players as "the GM rolled blind" until revealed; a GM sees everything. With
    --until-position or --at, the replay stops there and shows members, open rolls and
    totals as they stood. --json prints JSON Lines, one object per event.

    \b
    Examples:
      diceledger --as ann check "$S" "1d20+5" --target 15
      diceledger --as ann replay "$S"
      diceledger --as ann replay "$S" --until-position 3 --json
    """
    replayed = app.calls().replay(session_id, until_position, at)
    for line in replayed.lines:
        if app.json:
            click.echo(json.dumps(line.as_json(), ensure_ascii=False))
        elif not line.hidden or line.event == "RollRequested":
            click.echo(line_text(line))
    if replayed.as_of is not None:
        summary = {
            "until_position": until_position,
            "at": format_timestamp(at) if at else None,
            **replayed.as_of,
        }
        if app.json:
            click.echo(json.dumps({"as_of": summary}, ensure_ascii=False))
        else:
            click.echo(standing_text(summary))


def line_text(line: Line) -> str:
    """Return one human line: time, actor, what happened."""
    return f"{local_time(line.recorded_at)}  {shown(line.actor):<10} {shown(line.text)}"


def standing_text(summary: dict[str, Any]) -> str:
    """Return the as-of block: members, open rolls and disputes, totals per player."""
    members = ", ".join(f"{shown(m['name'])} ({m['role']})" for m in summary["members"])
    lines = [f"-- as of version {summary['version']}{' (ended)' if summary['ended'] else ''}"]
    lines.append(f"members: {members or '-'}")
    open_rolls = ", ".join(
        f"#{r['roll_id']} {shown(r['player'])} {r['kind']} ("
        + (
            "dice not yet rolled"
            if r["total_so_far"] is None
            else f"total so far {r['total_so_far']}"
        )
        + ")"
        for r in summary["open_rolls"]
    )
    lines.append(f"open rolls: {open_rolls or 'none'}")
    disputes = ", ".join(f"#{roll_id}" for roll_id in summary["open_disputes"])
    lines.append(f"open disputes: {disputes or 'none'}")
    for name, totals in summary["totals"].items():
        lines.append(
            f"  {shown(name)}: {counted(totals['rolls'], 'roll')}, checks won "
            f"{totals['checks_won']}/{totals['checks_made']}, "
            f"sum of totals {totals['sum_of_totals']}"
        )
    if summary["hidden_rolls"]:
        lines.append(f"  ({summary['hidden_rolls']} hidden rolls not shown)")
    return "\n".join(lines)

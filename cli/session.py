"""``diceledger session``: start, join, list, show and end sessions."""

from __future__ import annotations

from dataclasses import asdict

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.options import SESSION, WholeNumber
from diceledger.cli.output import emit_json, shown
from diceledger.cli.render import members_text, roll_text
from diceledger.domain.hashchain import format_timestamp
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import PlayerJoined
from diceledger.domain.session.views import session_view


@click.group("session")
def session() -> None:
    """Start, join, list, show and end sessions."""


@session.command("start")
@click.argument("title")
@click.option("--forbid-manual", is_flag=True, help="Refuse physical dice typed in with --faces.")
@json_option
@pass_app
def start(app: AppContext, title: str, forbid_manual: bool) -> None:
    """Start a session; you become its GM.

    \b
    Example:
      diceledger --as gm session start "Tomb of Ash"
    """
    outcome = app.services().sessions.start(title, app.actor, not forbid_manual)
    state = outcome.state
    if app.json:
        emit_json(
            {
                "session_id": state.session_id,
                "title": state.title,
                "gm": state.creator,
                "commitment": state.epoch.commitment,
            }
        )
        return
    click.echo(shown(f"started {state.session_id} '{state.title}' (GM {state.creator})"))
    click.echo(f"seed commitment, epoch 1: {state.epoch.commitment}")


@session.command("join")
@SESSION
@click.option("--client-seed", default="", help="Your own entropy, mixed into your dice.")
@click.option("--gm", "as_gm", is_flag=True, help="Join as co-GM (a GM adds co-GMs with --name).")
@click.option("--name", help="Add this member instead of yourself (GM only).")
@json_option
@pass_app
def join(app: AppContext, session_id: str, client_seed: str, as_gm: bool, name: str | None) -> None:
    """Join a session as a player, or (as its GM) add a member or co-GM.

    \b
    Example:
      diceledger --as ann session join tomb-of-ash-1a2b3c --client-seed "ann's lucky words"
    """
    command = cmd.JoinSession(name or app.actor, client_seed, as_gm)
    outcome = app.services().sessions.execute(session_id, app.actor, command)
    # The name as the session keeps it (normalised), not necessarily as typed.
    joined = next(e for _, e in outcome.appended if isinstance(e, PlayerJoined))
    member = outcome.state.members[joined.name]
    if app.json:
        emit_json({"session_id": session_id, "name": member.name, "role": member.role})
        return
    click.echo(shown(f"{member.name} joined {session_id} as {member.role}"))


@session.command("list")
@json_option
@pass_app
def list_sessions(app: AppContext) -> None:
    """List the sessions in the store.

    \b
    Example:
      diceledger session list
    """
    from diceledger.cli.projections import directory_caught_up
    from diceledger.domain.errors import ReadOnlyError

    try:
        entries = list(directory_caught_up(app).entries())
    except ReadOnlyError:  # a store that may only be read: list it from the log itself
        from diceledger.infra.projections.directory import folded_entries

        entries = folded_entries(app.services().store)
    rows = [asdict(entry) for entry in entries]
    if app.json:
        emit_json(rows)
        return
    if not rows:
        click.echo("no sessions yet; `diceledger session start TITLE` starts one")
    for row in rows:
        status = "ended" if row["ended"] else "open"
        click.echo(
            shown(
                f"{row['session_id']}  {row['title']}  GM {row['gm']}  "
                f"{row['members']} members, {row['rolls']} rolls, {status}"
            )
        )


@session.command("show")
@SESSION
@json_option
@pass_app
def show(app: AppContext, session_id: str) -> None:
    """Show a session's members, seeds and rolls as you may see them.

    \b
    Example:
      diceledger session show tomb-of-ash-1a2b3c
    """
    state = app.services().sessions.load(session_id)
    if app.json:
        emit_json(session_view(state, app.actor))
        return
    status = "ended" if state.ended else "open"
    click.echo(shown(f"{state.session_id} '{state.title}' ({status}); GM {state.creator}"))
    click.echo(f"members: {members_text(state)}")
    for epoch in state.epochs:
        seed = f"seed {epoch.seed}" if epoch.seed else "seed not revealed"
        click.echo(shown(f"epoch {epoch.number}: commitment {epoch.commitment[:16]}..., {seed}"))
    for roll in state.rolls.values():
        click.echo(roll_text(state, roll, app.actor))


@session.command("end")
@SESSION
@click.option(
    "--dispute-days",
    type=WholeNumber(min=0, max=365),
    default=7,
    show_default=True,
    help="How many days players may still dispute rolls (now that the seed is out).",
)
@json_option
@pass_app
def end(app: AppContext, session_id: str, dispute_days: int) -> None:
    """End a session (GM only); waiting rolls resolve as they stand and the seed is revealed.

    Disputes, and the GM's rulings on them, stay open for --dispute-days after the end:
    the revealed seed is what lets players check their dice.

    \b
    Example:
      diceledger --as gm session end tomb-of-ash-1a2b3c --dispute-days 3
    """
    outcome = app.services().sessions.end(session_id, app.actor, dispute_days * 86400)
    state = outcome.state
    epoch = state.epochs[-1]
    until = format_timestamp(state.disputes_until) if state.disputes_until else None
    if app.json:
        emit_json(
            {
                "session_id": session_id,
                "ended": True,
                "epoch": epoch.number,
                "seed": epoch.seed,
                "disputes_until": until,
            }
        )
        return
    click.echo(shown(f"ended {session_id}; epoch {epoch.number} seed revealed: {epoch.seed}"))
    click.echo(f"disputes open until {until}")

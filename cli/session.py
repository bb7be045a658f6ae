"""``diceledger session``: start, join, list, show and end sessions."""

from __future__ import annotations

from dataclasses import asdict

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.options import SESSION, WholeNumber
from diceledger.cli.output import counted, emit_json, local_time, shown
from diceledger.cli.render import roll_text, view_text
from diceledger.cli.witness import witness
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.session import commands as cmd


@click.group("session")
def session() -> None:
    """Start, join, list, show and end sessions."""


@session.command("start")
@click.argument("title")
@click.option("--forbid-manual", is_flag=True, help="Refuse physical dice typed in with --faces.")
@click.option(
    "--campaign",
    "campaign_id",
    metavar="ID",
    help="Start it in this campaign (its starter or a GM of one of its sessions).",
)
@json_option
@pass_app
def start(app: AppContext, title: str, forbid_manual: bool, campaign_id: str | None) -> None:
    """Start a session; you become its GM.

    \b
    Examples:
      diceledger --as gm session start "Tomb of Ash"
      C=$(diceledger --as gm campaign start "Ashen Crown")
      diceledger --as gm session start "Evening one" --campaign "$C"
    """
    application = app.app()
    if campaign_id is None:
        started = application.start_session(app.actor, title, not forbid_manual)
    else:
        campaigns = application.campaigns
        started = campaigns.start_session(app.actor, campaign_id, title, not forbid_manual)
    witness(app, started.session_id, started.checkpoint)
    if app.json:
        emit_json(
            {
                "session_id": started.session_id,
                "title": started.title,
                "gm": started.gm,
                "commitment": started.commitment,
                "checkpoint": started.checkpoint,
                "campaign_id": campaign_id,
            }
        )
        return
    click.echo(shown(f"started {started.session_id} '{started.title}' (GM {started.gm})"))
    click.echo(f"seed commitment, epoch 1: {started.commitment}")


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
      diceledger --as cara session join "$S" --client-seed "cara's lucky words"
    """
    command = cmd.JoinSession(name or app.actor, client_seed, as_gm)
    joined = app.app().join(app.actor, session_id, command)
    member = joined.member
    witness(app, session_id, joined.checkpoint)
    if app.json:
        emit_json(
            {
                "session_id": session_id,
                "name": member.name,
                "role": member.role,
                "checkpoint": joined.checkpoint,
            }
        )
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
    from diceledger.cli.projections import catching_up

    remote = app.remote()
    if remote is not None:
        rows = [asdict(entry) for entry in remote.sessions()]  # those you hold a token for
    else:
        application = app.app()
        pending = application.pending_directory_events()
        with catching_up(pending, "session directory", app.json) as progress:
            rows = [asdict(entry) for entry in application.sessions(progress)]
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
                f"{counted(row['members'], 'member')}, {counted(row['rolls'], 'roll')}, {status}"
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
      diceledger --as ann session show "$S"
    """
    remote = app.remote()
    if remote is not None:
        view = remote.session(session_id)
        rolls = [view_text(r) for r in _list(view, "rolls") if isinstance(r, dict)]
    else:
        session = app.app().session(app.actor, session_id)
        view, rolls = session.view, [roll_text(roll) for roll in session.rolls]
    if app.json:
        emit_json(view)
        return
    # The head lines read the view, the one shape a local store and a server both give.
    status = "ended" if view.get("ended") else "open"
    head = f"{view.get('session_id')} '{view.get('title')}' ({status}); GM {view.get('gm')}"
    click.echo(shown(head))
    members = [m for m in _list(view, "members") if isinstance(m, dict)]
    named = ", ".join(f"{shown(str(m.get('name')))} ({m.get('role')})" for m in members)
    click.echo(f"members: {named}")
    for epoch in _list(view, "epochs"):
        if isinstance(epoch, dict):
            seed = f"seed {epoch['seed']}" if epoch.get("seed") else "seed not revealed"
            commitment = str(epoch.get("commitment"))[:16]
            click.echo(shown(f"epoch {epoch.get('epoch')}: commitment {commitment}..., {seed}"))
    for line in rolls:
        click.echo(line)


def _list(view: JsonObject, key: str) -> list[JsonValue]:
    value = view.get(key)
    return value if isinstance(value, list) else []


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
      diceledger --as gm session end "$S" --dispute-days 3
    """
    ended = app.app().end_session(app.actor, session_id, dispute_days * 86400)
    epoch = ended.last_epoch
    witness(app, session_id, ended.checkpoint)
    if app.json:
        emit_json(dict(ended.answer()))
        return
    click.echo(shown(f"ended {session_id}; epoch {epoch.number} seed revealed: {epoch.seed}"))
    if ended.disputes_until:
        click.echo(f"disputes open until {local_time(ended.disputes_until)}")

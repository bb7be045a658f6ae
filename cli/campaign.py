"""``diceledger campaign``: start, show and list campaigns (sessions of one group)."""

from __future__ import annotations

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import counted, emit_json, shown


@click.group("campaign")
def campaign() -> None:
    """Start, show and list campaigns: one group's sessions across evenings."""


@campaign.command("start")
@click.argument("title")
@json_option
@pass_app
def start(app: AppContext, title: str) -> None:
    """Start a campaign and print its id; add sessions with `session start --campaign ID`.

    \b
    Example:
      C=$(diceledger --as gm campaign start "Ashen Crown")
      diceledger --as gm session start "Evening one" --campaign "$C"
    """
    started = app.app().campaigns.start(app.actor, title)
    if app.json:
        emit_json({"campaign_id": started.campaign_id, "title": started.title})
        return
    click.echo(started.campaign_id)


@campaign.command("show")
@click.argument("campaign_id", metavar="ID")
@json_option
@pass_app
def show(app: AppContext, campaign_id: str) -> None:
    """Show a campaign: its title, who started it, its sessions and your role in each.

    \b
    Example:
      C=$(diceledger --as gm campaign start "Ashen Crown")
      diceledger --as gm campaign show "$C"
    """
    view = app.app().campaigns.show(app.actor, campaign_id)
    if app.json:
        emit_json(view.as_dict())
        return
    click.echo(shown(f"{view.campaign_id} '{view.title}' (started by {view.started_by})"))
    if not view.sessions:
        click.echo("no sessions yet; `diceledger session start TITLE --campaign ID` adds one")
    for number, session in enumerate(view.sessions, start=1):
        role = session.role or "not a member"
        click.echo(shown(f"  {number}. {session.session_id}  {session.title}  ({role})"))


@campaign.command("list")
@json_option
@pass_app
def list_campaigns(app: AppContext) -> None:
    """List the campaigns in the store.

    \b
    Example:
      diceledger campaign list
    """
    found = app.app().campaigns.all()
    if app.json:
        emit_json(
            [
                {
                    "campaign_id": c.campaign_id,
                    "title": c.title,
                    "started_by": c.started_by,
                    "sessions": list(c.sessions),
                }
                for c in found
            ]
        )
        return
    if not found:
        click.echo("no campaigns yet; `diceledger campaign start TITLE` starts one")
    for c in found:
        click.echo(
            shown(
                f"{c.campaign_id}  {c.title}  started by {c.started_by}, "
                f"{counted(len(c.sessions), 'session')}"
            )
        )

"""``diceledger db``: create, upgrade and inspect the database schema."""

from __future__ import annotations

import json

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.infra.db import (
    current_revision,
    head_revision,
    make_engine,
    resolve_url,
    schema_status,
    upgrade,
)


@click.group("db")
def db() -> None:
    """Create, upgrade and inspect the database schema."""


@db.command("upgrade")
@json_option
@pass_app
def upgrade_command(app: AppContext) -> None:
    """Upgrade the database schema to the one this version of diceledger needs.

    \b
    Example:
      diceledger --db postgresql+psycopg://app@db.example/diceledger db upgrade
    """
    url = resolve_url(app.db_url)
    upgrade(url)
    _report(app, url, "upgraded")


@db.command("current")
@json_option
@pass_app
def current_command(app: AppContext) -> None:
    """Show the database's schema revision and whether it is the current one.

    \b
    Example:
      diceledger db current --json
    """
    _report(app, resolve_url(app.db_url), None)


def _report(app: AppContext, url: str, action: str | None) -> None:
    engine = make_engine(url)
    try:
        current = current_revision(engine)
    finally:
        engine.dispose()
    head = head_revision()
    if app.json:
        document: dict[str, object] = {
            "database": engine.url.render_as_string(hide_password=True),
            "revision": current,
            "head": head,
            "is_head": current == head,
            "status": schema_status(current),
        }
        click.echo(json.dumps(document))
        return
    state = schema_status(current)
    prefix = f"{action}: " if action else ""
    click.echo(f"{prefix}schema revision {current or 'none'} ({state})")

"""``diceledger db``: create, upgrade and inspect the database schema."""

from __future__ import annotations

import json

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.infra.app.database import SchemaReport, schema_report, upgrade_schema


@click.group("db")
def db() -> None:
    """Create, upgrade and inspect the database schema."""


@db.command("upgrade")
@json_option
@pass_app
def upgrade_command(app: AppContext) -> None:
    """Upgrade the database schema to the one this version of diceledger needs.

    \b
    A PostgreSQL database is named with --db, e.g. `diceledger --db
    postgresql+psycopg://app@db.example/diceledger db upgrade` (docs/deploy.md).

    \b
    Example:
      diceledger db upgrade
    """
    _report(app, upgrade_schema(app.db_url), "upgraded")


@db.command("current")
@json_option
@pass_app
def current_command(app: AppContext) -> None:
    """Show the database's schema revision and whether it is the current one.

    \b
    Example:
      diceledger db current --json
    """
    _report(app, schema_report(app.db_url), None)


@db.command("adopt")
@click.argument("session_ids", metavar="[SESSION]...", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every session with unsigned events.")
@json_option
@pass_app
def adopt_command(app: AppContext, session_ids: tuple[str, ...], every: bool) -> None:
    """Sign events this store holds but never signed, after they verify (the operator).

    Sessions recorded before this store signed its logs, and events an older server
    appended but did not sign, are refused new commands until adopted (a crash leaves
    none: appends and signatures commit together). A
    row forged by another path looks the same: adopt only what you know to be genuine.
    Each session must verify (`diceledger verify`) or nothing of it is signed.

    \b
    Examples:
      diceledger db adopt "$S"
      diceledger db adopt --all
    """
    if bool(session_ids) == every:
        raise click.UsageError("name the sessions to adopt, or give --all")
    proofs = app.app().proofs
    chosen = proofs.unsigned_sessions() if every else list(session_ids)
    done = [proofs.adopt(session_id) for session_id in chosen]
    if app.json:
        click.echo(
            json.dumps(
                [
                    {"session_id": d.session_id, "adopted": d.adopted, "checkpoint": d.checkpoint}
                    for d in done
                ]
            )
        )
        return
    if not done:
        click.echo("every session is signed; nothing to adopt")
    for result in done:
        click.echo(f"adopted {result.session_id}: {result.adopted} events signed")


def _report(app: AppContext, report: SchemaReport, action: str | None) -> None:
    if app.json:
        document: dict[str, object] = {
            "database": report.database,
            "revision": report.revision,
            "head": report.head,
            "is_head": report.is_head,
            "status": report.status,
        }
        click.echo(json.dumps(document))
        return
    prefix = f"{action}: " if action else ""
    click.echo(f"{prefix}schema revision {report.revision or 'none'} ({report.status})")

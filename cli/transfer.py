"""``diceledger export`` and ``import``: move a session's events between stores as JSON Lines."""

from __future__ import annotations

from pathlib import Path

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import emit_json, shown


@click.command("export")
@click.argument("session_id", metavar="SESSION")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, writable=True),
    help="The JSON Lines file to write.",
)
@json_option
@pass_app
def export(app: AppContext, session_id: str, output: str) -> None:
    """Write a session's events, with their hashes, as JSON Lines (format: docs/storage.md).

    The events are exported as recorded, so a session with blind rolls not yet revealed
    may be exported by its GM only.

    \b
    Example:
      diceledger --as gm export tomb-of-ash-1a2b3c -o tomb.jsonl
    """
    from diceledger.infra.exporting import write_lines

    exported = app.app().export(app.actor, session_id)
    count = write_lines(exported.lines, output)
    if not exported.ended:
        # Its seed stays in this store's vault: a copy imported elsewhere can be verified
        # and replayed, but no one can roll in it there.
        click.echo(
            shown(
                f"warning: {session_id} is still open and its seed stays in this store; "
                "the imported copy can be verified and replayed but not played on "
                "(end the session here first to move it whole)"
            ),
            err=True,
        )
    if app.json:
        emit_json(
            {"session_id": session_id, "events": count, "file": output, "open": not exported.ended}
        )
        return
    click.echo(shown(f"exported {count} events of {session_id} to {output}"))


@click.command("import")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@json_option
@pass_app
def import_(app: AppContext, path: str) -> None:
    """Append an export's events to this store, verifying them on the way in.

    A broken or cut-short file is refused whole, naming its first bad line, and so is a
    session that does not verify (a forged event under a rebuilt chain); events the store
    already holds are skipped, so importing a file twice appends nothing.

    \b
    Example:
      diceledger --db postgresql://localhost/club import tomb.jsonl
    """
    imported = app.app().import_file(Path(path))
    lines, appended = imported.events, imported.appended
    if app.json:
        emit_json({"file": path, "events": lines, "appended": appended})
        return
    click.echo(
        shown(
            f"imported {path}: {lines} events, {appended} appended, "
            f"{lines - appended} already present"
        )
    )

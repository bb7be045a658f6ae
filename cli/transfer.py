"""``diceledger export`` and ``import``: move a session's events between stores as JSON Lines."""

from __future__ import annotations

from pathlib import Path

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import emit_json, shown
from diceledger.cli.witness import TRUST_KEY, witness
from diceledger.domain.signed_note import VerifierKey


@click.command("export")
@click.argument("session_id", metavar="SESSION")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, writable=True),
    help="The JSON Lines file to write; its proof goes beside it, as FILE.proof.json.",
)
@json_option
@pass_app
def export(app: AppContext, session_id: str, output: str) -> None:
    """Write a session's events, with their hashes, as JSON Lines (format: docs/storage.md).

    Beside the file goes its proof, FILE.proof.json: the signed checkpoint of exactly
    these events and the server's verifier keys (docs/verification.md), which `import`
    requires and `verify --file` checks. A player's export holds each event of a blind
    roll not yet revealed as a sealed line (its place and hash, nothing of the roll):
    `verify --file` checks everything else, and only a complete export can be imported.

    \b
    Example:
      diceledger --as gm export "$S" -o tomb.jsonl
    """
    exported = app.calls().export_file(session_id, Path(output))
    count = exported.events
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
    proof = None if exported.proof is None else str(exported.proof)
    if app.json:
        emit_json(
            {
                "session_id": session_id,
                "events": count,
                "file": output,
                "open": not exported.ended,
                "proof": proof,
            }
        )
        return
    click.echo(shown(f"exported {count} events of {session_id} to {output}"))
    if proof is not None:
        click.echo(f"its proof (the signed checkpoint and the server's keys): {proof}")


@click.command("import")
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--proof",
    "proof_file",
    type=click.Path(exists=True, dir_okay=False),
    help="The export's proof (default: FILE.proof.json beside it).",
)
@TRUST_KEY
@click.option(
    "--allow-unsigned",
    is_flag=True,
    help="Take in sessions new to this store without a trusted checkpoint (never a continuation).",
)
@json_option
@pass_app
def import_(
    app: AppContext,
    path: str,
    proof_file: str | None,
    trusted: tuple[VerifierKey, ...],
    allow_unsigned: bool,
) -> None:
    """Append an export's events to this store, verifying them and their proof on the way in.

    Each session must come with a checkpoint signed by a key this store trusts (its own,
    or one given with --trust-key) that heads exactly the file's events; this store then
    signs what it took in under its own key. A broken or cut-short file is refused whole,
    naming its first bad line, and so is a session that does not verify; events the
    store already holds are skipped, so importing a file twice appends nothing. Another
    server's export comes with its key: `--trust-key "$(cat their-server.key)"`.

    \b
    Examples:
      diceledger --as gm export "$S" -o tomb.jsonl
      diceledger --db "sqlite:///$PWD/club.sqlite" import tomb.jsonl
    """
    proof = None if proof_file is None else Path(proof_file)
    imported = app.app().import_file(Path(path), proof, trusted, allow_unsigned)
    for session_id, note in imported.checkpoints:
        witness(app, session_id, note)
    lines, appended = imported.events, imported.appended
    if app.json:
        notes = dict(imported.checkpoints)
        only = next(iter(notes.values())) if len(notes) == 1 else None
        emit_json(
            {
                "file": path,
                "events": lines,
                "appended": appended,
                "checkpoint": only,
                "checkpoints": notes,
            }
        )
        return
    click.echo(
        shown(
            f"imported {path}: {lines} events, {appended} appended, "
            f"{lines - appended} already present"
        )
    )

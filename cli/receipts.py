"""``diceledger checkpoint`` and ``receipt``: what a player keeps to hold the log to account."""

from __future__ import annotations

import json
from pathlib import Path

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.options import ROLL, SESSION
from diceledger.cli.output import emit_json
from diceledger.cli.witness import witness
from diceledger.domain.fingerprint import checkpoint_label, fingerprint_words

OUTPUT = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    help="Write it to this file instead of printing it.",
)


@click.command("checkpoint")
@SESSION
@OUTPUT
@json_option
@pass_app
def checkpoint(app: AppContext, session_id: str, output: str | None) -> None:
    """Print the session's latest signed checkpoint (C2SP signed note), to keep.

    Anyone who keeps it can later prove that a log of the session dropped or changed
    anything it signed: `diceledger verify SESSION --checkpoint FILE`. With -o or --json
    it is also shown as `#size · five words`, as the table page and Discord show it, so
    that people at one table can compare by voice.

    \b
    Example:
      diceledger --as ann checkpoint "$S" -o tomb.checkpoint
    """
    result = app.app().proofs.checkpoint(session_id)
    witness(app, session_id, result.note)
    if output is not None:
        _write(Path(output), result.note)
    signed = result.signed.checkpoint
    label = checkpoint_label(signed.size, signed.root)
    if app.json:
        emit_json(
            {
                "session_id": session_id,
                "size": signed.size,
                "root": signed.root.hex(),
                "checkpoint": result.note,
                "verifier_key": str(result.verifier_key),
                "words": fingerprint_words(signed.root),
                "file": output,
            }
        )
    elif output is not None:
        click.echo(
            f"checkpoint of {session_id}: {signed.size} events, root {signed.root.hex()}, "
            f"signed by {result.verifier_key.name}; written to {output}\n{label}"
        )
    else:
        click.echo(result.note, nl=False)  # the note alone, to keep in a file


@click.command("receipt")
@SESSION
@ROLL
@OUTPUT
@json_option
@pass_app
def receipt(app: AppContext, session_id: str, roll_id: int, output: str | None) -> None:
    """Print a roll's receipt: its events, their Merkle proofs, the signed checkpoint, the key.

    `diceledger verify --receipt FILE` checks it with no database and no server; kept
    as a checkpoint (`verify SESSION --checkpoint FILE`), it proves a later log still
    holds the roll. A hidden blind roll's receipt is for a GM only.

    \b
    Example:
      diceledger --as ann check "$S" "1d20+5" --target 15
      diceledger --as ann receipt "$S" 1 -o roll-1.receipt.json
    """
    made = app.app().proofs.receipt(app.actor, session_id, roll_id)
    witness(app, session_id, made.checkpoint)
    document = made.to_json()
    if output is not None:
        _write(Path(output), document)
    if app.json:
        if output is None:
            emit_json(json.loads(document))  # the receipt itself, on one line
            return
        events = len(made.entries)
        emit_json({"session_id": session_id, "roll_id": roll_id, "events": events, "file": output})
    elif output is not None:
        click.echo(
            f"receipt of roll {roll_id} of {session_id}: {len(made.entries)} events; "
            f"written to {output}"
        )
    else:
        click.echo(document, nl=False)


def _write(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8")
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(path)) from None
    partial.replace(path)

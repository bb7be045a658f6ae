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
from diceledger.domain.signed_note import VerifierKey

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
    remote = app.remote()
    if remote is not None:
        answered = remote.checkpoint(session_id)
        note, size = str(answered.get("checkpoint")), int(str(answered.get("size")))
        root = bytes.fromhex(str(answered.get("root")))
        key = VerifierKey.parse(str(answered.get("verifier_key")))
    else:
        result = app.app().proofs.checkpoint(session_id)
        note, key = result.note, result.verifier_key
        size, root = result.signed.checkpoint.size, result.signed.checkpoint.root
    witness(app, session_id, note)
    if output is not None:
        _write(Path(output), note)
    label = checkpoint_label(size, root)
    if app.json:
        emit_json(
            {
                "session_id": session_id,
                "size": size,
                "root": root.hex(),
                "checkpoint": note,
                "verifier_key": str(key),
                "words": fingerprint_words(root),
                "file": output,
            }
        )
    elif output is not None:
        click.echo(
            f"checkpoint of {session_id}: {size} events, root {root.hex()}, "
            f"signed by {key.name}; written to {output}\n{label}"
        )
    else:
        click.echo(note, nl=False)  # the note alone, to keep in a file


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
    made = app.calls().receipt(session_id, roll_id)
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

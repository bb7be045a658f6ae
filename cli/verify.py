"""``diceledger verify``: prove a session's dice fair and its log untouched."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import counted, emit_json, progress, shown
from diceledger.cli.witness import TRUST_KEY, warn, witness
from diceledger.domain.errors import MalformedError
from diceledger.domain.receipt import Receipt
from diceledger.domain.signed_note import VerifierKey
from diceledger.domain.verification.report import Anchor, Report
from diceledger.infra.app.export_verdict import CHECKED, Standing, Verdict, kept_claim
from diceledger.infra.app.verification import Line, check_receipt, verify_export

LOG_ALONE = CHECKED[Anchor.LOG_ALONE]
AGAINST_SIGNED = CHECKED[Anchor.SIGNED_CHECKPOINT]
AGAINST_KEPT = CHECKED[Anchor.KEPT_CHECKPOINT]
UNANCHORED = (
    "not anchored (exit 3): only a key the document itself carries signed it, and anyone "
    "can make such a key; compare it with the server's published keys (GET /api/v1/keys) "
    "and pass --trust-key"
)


@click.command("verify")
@click.argument("session_id", metavar="SESSION", required=False)
@click.option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False),
    help="Verify an exported session (JSON Lines) instead; needs no database.",
)
@click.option(
    "--receipt",
    "receipt_path",
    type=click.Path(exists=True, dir_okay=False),
    help="Check a roll's receipt instead; needs no database and no server.",
)
@click.option(
    "--checkpoint",
    "kept_files",
    type=click.Path(exists=True, dir_okay=False),
    multiple=True,
    help="A checkpoint (or receipt) you kept: the log must still hold what it signed.",
)
@click.option(
    "--proof",
    "proof_file",
    type=click.Path(exists=True, dir_okay=False),
    help="With --file: the export's proof (default: EXPORT.proof.json beside it).",
)
@TRUST_KEY
@json_option
@pass_app
def verify(
    app: AppContext,
    session_id: str | None,
    path: str | None,
    receipt_path: str | None,
    kept_files: tuple[str, ...],
    proof_file: str | None,
    trusted: tuple[VerifierKey, ...],
) -> None:
    """Check the hash chain, nonces, seed commitments, every die and every outcome.

    A log alone can only be shown to agree with itself. Given checkpoints you kept
    (--checkpoint, repeatable, or those this machine kept as commands answered), it also
    proves the log still holds everything they signed: nothing dropped, replaced or
    replayed. The report says what was checked. Exits 0 when every check holds against
    a key you trust (or the log alone, when that is all there is), 1 naming the first
    failure, 3 when all holds but only keys the file itself carries signed it. Dice of
    epochs whose seed is not revealed yet are counted as not yet verifiable.

    \b
    Examples:
      diceledger verify "$S"
      diceledger --as ann checkpoint "$S" -o kept.checkpoint
      diceledger verify "$S" --checkpoint kept.checkpoint
      diceledger --as gm export "$S" -o tomb.jsonl
      diceledger verify --file tomb.jsonl --checkpoint kept.checkpoint --json
      diceledger --as ann check "$S" "1d20+5" --target 15
      diceledger --as ann receipt "$S" 1 -o roll-1.receipt.json
      diceledger verify --receipt roll-1.receipt.json
    """
    given = [value for value in (session_id, path, receipt_path) if value is not None]
    if len(given) != 1:
        raise click.UsageError("give a SESSION or --file EXPORT (or --receipt FILE), not several")
    if receipt_path is not None:
        if kept_files or proof_file:
            raise click.UsageError("--receipt is checked on its own: no --checkpoint or --proof")
        _verify_receipt(app, Path(receipt_path), trusted)
        return
    claims = tuple(kept_claim(name, _text(Path(name))) for name in kept_files)
    reader = app.keeper().reader(trusted, claims)
    remote = app.remote()
    if path is not None:
        verdict = verify_export(path, proof_file, reader, _progress)
    elif remote is not None:
        assert session_id is not None
        # A client checks the server's log itself: the export, against the checkpoints
        # kept here and the one the server signed for exactly those events.
        with tempfile.TemporaryDirectory(prefix="diceledger-verify-") as folder:
            exported = remote.export_file(session_id, Path(folder) / "session.jsonl")
            verdict = verify_export(
                Path(folder) / "session.jsonl", exported.proof, reader, _progress
            )
        latest = remote.checkpoint(session_id).get("checkpoint")
        if verdict.ok and isinstance(latest, str):
            witness(app, session_id, latest)
    else:
        assert session_id is not None
        application = app.app()
        latest = application.proofs.latest(session_id)
        verdict = application.verify_session(session_id, reader, _progress)
        if verdict.ok and latest is not None:
            witness(app, session_id, latest)
    if app.json:
        emit_json(verdict.as_dict())
    else:
        _print(verdict.report)
        _print_audit(verdict)
    if verdict.standing is not Standing.PROVEN:
        raise click.exceptions.Exit(verdict.standing.value)


def _progress(records: Iterable[Line], count: int) -> Iterable[Line]:
    return progress(records, count, "verifying")


def _verify_receipt(app: AppContext, path: Path, trusted: tuple[VerifierKey, ...]) -> None:
    receipt = Receipt.parse(_text(path))
    checked = check_receipt(receipt, app.keeper().reader(trusted))
    signed = checked.verified.checkpoint
    records = checked.verified.records
    versions = [int(record["stream_version"]) for record in records]
    rolls = sorted({r["data"]["roll_id"] for r in records if "roll_id" in r["data"]})
    dice = checked.dice
    if app.json:
        emit_json(
            {
                "ok": True,
                "verdict": checked.standing.name.lower(),
                "session_id": signed.session_id,
                "rolls": rolls,
                "roll_id": checked.roll_id,
                "sealed_events": list(checked.verified.sealed),
                "events": versions,
                "checkpoint_size": signed.checkpoint.size,
                "signed_by": signed.signer,
                "key_pinned": checked.pinned,
                "dice_verified": dice.verified,
                "manual_dice": dice.manual,
                "not_yet_verifiable_dice": dice.unverifiable,
            }
        )
    else:
        sealed = checked.verified.sealed
        click.echo(
            f"receipt of session {signed.session_id}, roll {checked.roll_id}: "
            f"{len(records)} events (versions {', '.join(map(str, versions))})"
            + (f", {len(sealed)} sealed (a hidden roll's, not checked)" if sealed else "")
        )
        click.echo(
            f"complete: every event of roll {checked.roll_id} from its request to the one "
            "after its last"
        )
        click.echo(
            f"verified: each event is in the log of {signed.checkpoint.size} events that "
            f"{signed.signer} signed"
        )
        click.echo(
            f"dice: {dice.verified} verified against the revealed seed it holds, "
            f"{dice.manual} typed in (cannot be verified), {dice.unverifiable} not yet verifiable"
        )
    if checked.standing is Standing.UNANCHORED:
        warn(UNANCHORED)
        raise click.exceptions.Exit(checked.standing.value)


def _text(path: Path) -> str:
    """Return a checkpoint's or receipt's text; a file that is not UTF-8 is malformed."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise MalformedError(f"{path} is not UTF-8 text (byte {error.start})") from None


def _print(report: Report) -> None:
    session = report.session_id or "(none)"
    events, rolls = counted(report.events, "event"), counted(report.rolls, "roll")
    click.echo(shown(f"session {session}: {events}, {rolls}"))
    click.echo(
        f"dice: {report.dice_verified} verified against revealed seeds, "
        f"{report.manual_dice} typed in (cannot be verified), "
        f"{report.unverifiable_dice} not yet verifiable"
    )
    for roll_id in report.sealed_rolls:
        click.echo(f"roll {roll_id}: sealed (a hidden blind roll), not yet checkable")
    if report.unrevealed_epochs:
        epochs = ", ".join(str(e) for e in report.unrevealed_epochs)
        click.echo(f"unrevealed seed epochs: {epochs} (`diceledger seed reveal` or session end)")
    first = report.first_failure
    if first is None:
        verified = (
            "verified: the chain, versions, rules, nonces, commitments and every outcome hold"
        )
        if report.unrevealed_epochs:
            epochs = ", ".join(str(e) for e in report.unrevealed_epochs)
            verified += f"; dice of epoch {epochs} are checked once its seed is revealed"
        if report.sealed_rolls:
            verified += "; a sealed roll is checked in an export after its reveal"
        click.echo(verified)
    else:
        click.echo(shown(f"FAILED at {first}"), err=True)


def _print_audit(verdict: Verdict) -> None:
    audit = verdict.audit
    for finding in audit.findings:
        if finding.ok:
            click.echo(f"checkpoint: {finding}")
        else:
            click.echo(f"CHECKPOINT FAILED: {finding}", err=True)
    if audit.kept:
        click.echo(
            f"checked against: {AGAINST_KEPT} ({audit.kept}): nothing they signed was "
            "dropped or changed"
            if audit.ok
            else f"checked against: {AGAINST_KEPT} ({audit.kept})"
        )
    elif verdict.report.anchor is Anchor.SIGNED_CHECKPOINT:
        click.echo(f"checked against: {AGAINST_SIGNED}")
    else:
        click.echo(
            f"checked against: {LOG_ALONE}; it agrees with itself, but only a kept checkpoint "
            "(--checkpoint) shows nothing was cut from its end or rewritten"
        )
    if verdict.standing is Standing.UNANCHORED:
        warn(UNANCHORED)

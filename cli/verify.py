"""``diceledger verify``: prove a session's dice fair and its log untouched."""

from __future__ import annotations

from pathlib import Path

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import emit_json, progress, shown
from diceledger.cli.witness import TRUST_KEY, warn, witness
from diceledger.domain.audit import Claim, LogAudit
from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.errors import MalformedError
from diceledger.domain.json import JsonObject
from diceledger.domain.receipt import Receipt
from diceledger.domain.signed_note import SignedNote, VerifierKey
from diceledger.domain.verification.report import Anchor, Report

LOG_ALONE = "the log alone"
AGAINST_KEPT = "the log and kept checkpoints"


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
    replayed. The report says which of the two was checked. Exits 0 when every check
    holds, 1 naming the first failure otherwise. Dice of epochs whose seed is not
    revealed yet are counted as not yet verifiable.

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
    claims = [_claim(Path(name)) for name in kept_files]
    if path is not None:
        report, audit = _verify_file(app, path, proof_file, claims, trusted)
    else:
        assert session_id is not None
        report, audit = _verify_session(app, session_id, claims, trusted)
    if audit.kept:
        report.anchor = Anchor.KEPT_CHECKPOINT
    if app.json:
        emit_json({**report.as_dict(), "checkpoints": _audit_json(audit)})
    else:
        _print(report)
        _print_audit(audit)
    if not report.ok or not audit.ok:
        raise click.exceptions.Exit(1)


def _verify_session(
    app: AppContext, session_id: str, claims: list[Claim], trusted: tuple[VerifierKey, ...]
) -> tuple[Report, LogAudit]:
    application = app.app()
    report = application.verify_session(
        session_id, lambda records, events: progress(records, events, "verifying")
    )
    keeper = app.keeper()
    latest = application.proofs.latest(session_id)
    here = _kept_here(app, session_id, latest)
    audit = application.proofs.audit(session_id, claims + here, (*trusted, *keeper.pinned()))
    if audit.ok and latest is not None:
        witness(app, session_id, latest)
    return report, audit


def _verify_file(
    app: AppContext,
    path: str,
    proof_file: str | None,
    claims: list[Claim],
    trusted: tuple[VerifierKey, ...],
) -> tuple[Report, LogAudit]:
    from diceledger.infra.signed_exports import proof_path, read_proof
    from diceledger.infra.verifying import audit_file, verify_file

    with open(path, "rb") as handle:
        lines = sum(1 for _ in handle)
    report = verify_file(path, lambda records: progress(records, lines, "verifying"))
    proof = read_proof(proof_file or proof_path(path))
    session_id = report.session_id or ""
    heads = (
        [] if proof is None else [n for n in proof.checkpoints if _origin(n).endswith(session_id)]
    )
    here = _kept_here(app, session_id, heads[0] if heads else None)
    return report, audit_file(path, session_id, proof, claims + here, _known(app, trusted))


def _verify_receipt(app: AppContext, path: Path, trusted: tuple[VerifierKey, ...]) -> None:
    from diceledger.infra.verifying import check_receipt

    receipt = Receipt.parse(_text(path))
    checked = check_receipt(receipt, _known(app, trusted))
    signed = checked.verified.checkpoint
    records = checked.verified.records
    versions = [int(record["stream_version"]) for record in records]
    rolls = sorted({r["data"]["roll_id"] for r in records if "roll_id" in r["data"]})
    dice = checked.dice
    if app.json:
        emit_json(
            {
                "ok": True,
                "session_id": signed.session_id,
                "rolls": rolls,
                "events": versions,
                "checkpoint_size": signed.checkpoint.size,
                "signed_by": signed.signer,
                "key_pinned": checked.pinned,
                "dice_verified": dice.verified,
                "manual_dice": dice.manual,
                "not_yet_verifiable_dice": dice.unverifiable,
            }
        )
        return
    click.echo(
        f"receipt of session {signed.session_id}, roll {', '.join(map(str, rolls))}: "
        f"{len(records)} events (versions {', '.join(map(str, versions))})"
    )
    click.echo(
        f"verified: each event is in the log of {signed.checkpoint.size} events that "
        f"{signed.signer} signed"
    )
    click.echo(
        f"dice: {dice.verified} verified against the revealed seed it holds, "
        f"{dice.manual} typed in (cannot be verified), {dice.unverifiable} not yet verifiable"
    )
    if not checked.pinned:
        warn(
            "the receipt's key is vouched for only by the receipt itself: compare it with "
            "the server's published keys, or pass --trust-key"
        )


def _text(path: Path) -> str:
    """Return a checkpoint's or receipt's text; a file that is not UTF-8 is malformed."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise MalformedError(f"{path} is not UTF-8 text (byte {error.start})") from None


def _claim(path: Path) -> Claim:
    """Read a kept checkpoint: a signed note, or a receipt holding one."""
    text = _text(path)
    if text.lstrip().startswith("{"):
        return Claim(f"{path} (receipt)", Receipt.parse(text).checkpoint)
    return Claim(str(path), text)


def _kept_here(app: AppContext, session_id: str, head: str | None) -> list[Claim]:
    """Return the checkpoints this machine kept of the log ``head`` heads."""
    if head is None:
        return []
    origin = _origin(head)
    return [
        Claim(f"kept by this machine ({path})", note)
        for path, note in app.keeper().kept(session_id)
        if _origin(note) == origin
    ]


def _known(app: AppContext, trusted: tuple[VerifierKey, ...]) -> tuple[VerifierKey, ...]:
    """Return the keys a reader with no database trusts: given, own server's, pinned."""
    from diceledger.infra.signing import open_keyring

    return (*trusted, *open_keyring().known(), *app.keeper().pinned())


def _origin(note: str) -> str:
    try:
        return Checkpoint.parse(SignedNote.parse(note).text).origin
    except MalformedError:
        return ""


def _audit_json(audit: LogAudit) -> JsonObject:
    return {
        "checked": AGAINST_KEPT if audit.kept else LOG_ALONE,
        "ok": audit.ok,
        "kept": audit.kept,
        "findings": [
            {"source": finding.source, "ok": finding.ok, "detail": finding.detail}
            for finding in audit.findings
        ],
    }


def _print(report: Report) -> None:
    session = report.session_id or "(none)"
    click.echo(shown(f"session {session}: {report.events} events, {report.rolls} rolls"))
    click.echo(
        f"dice: {report.dice_verified} verified against revealed seeds, "
        f"{report.manual_dice} typed in (cannot be verified), "
        f"{report.unverifiable_dice} not yet verifiable"
    )
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
        click.echo(verified)
    else:
        click.echo(shown(f"FAILED at {first}"), err=True)


def _print_audit(audit: LogAudit) -> None:
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
    else:
        click.echo(
            f"checked against: {LOG_ALONE}; it agrees with itself, but only a kept checkpoint "
            "(--checkpoint) shows nothing was cut from its end or rewritten"
        )

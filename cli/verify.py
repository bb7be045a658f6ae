"""``diceledger verify``: prove a session's dice fair and its log untouched."""

from __future__ import annotations

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import emit_json, progress, shown
from diceledger.domain.verification.report import Anchor, Report

ANCHOR_LINES = {
    Anchor.LOG_ALONE: (
        "checked against: the log alone; it agrees with itself, but only a kept checkpoint "
        "shows nothing was cut from its end or rewritten (docs/verification.md)"
    ),
    Anchor.KEPT_CHECKPOINT: "checked against: a kept checkpoint and the log",
}


@click.command("verify")
@click.argument("session_id", metavar="SESSION", required=False)
@click.option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False),
    help="Verify an exported session (JSON Lines) instead; needs no database.",
)
@json_option
@pass_app
def verify(app: AppContext, session_id: str | None, path: str | None) -> None:
    """Check the hash chain, nonces, seed commitments, every die and every outcome.

    Exits 0 when every check holds, 1 naming the first failure otherwise. Dice of
    epochs whose seed is not revealed yet are counted as not yet verifiable.

    \b
    Examples:
      diceledger verify tomb-of-ash-1a2b3c
      diceledger verify --file tomb.jsonl --json
    """
    if (session_id is None) == (path is None):
        raise click.UsageError("give a SESSION or --file EXPORT, not both")
    if path is not None:
        from diceledger.infra.exporting import count_lines
        from diceledger.infra.verifying import verify_file

        lines = count_lines(path)
        report = verify_file(path, lambda records: progress(records, lines, "verifying"))
    else:
        assert session_id is not None
        report = app.app().verify_session(
            session_id, lambda records, events: progress(records, events, "verifying")
        )
    if app.json:
        emit_json(report.as_dict())
    else:
        _print(report)
    if not report.ok:
        raise click.exceptions.Exit(1)


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
    click.echo(ANCHOR_LINES[report.anchor])
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

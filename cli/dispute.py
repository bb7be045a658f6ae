"""``diceledger dispute``: open, review and resolve disputes over rolls."""

from __future__ import annotations

from typing import Any

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.options import ROLL, SESSION
from diceledger.cli.output import emit_json, shown
from diceledger.cli.witness import witness
from diceledger.domain.session import commands as cmd


@click.group("dispute")
def dispute() -> None:
    """Dispute a roll, review it die by die (GM), and rule on it (GM)."""


@dispute.command("open")
@SESSION
@ROLL
@click.option("--reason", required=True, help="Why the roll is disputed.")
@json_option
@pass_app
def open_(app: AppContext, session_id: str, roll_id: int, reason: str) -> None:
    """Dispute a roll you can see.

    \b
    Example:
      diceledger --as bob check "$S" "1d20+1" --target 12
      diceledger --as bob dispute open "$S" 1 --reason "the die fell off"
    """
    remote = app.remote()
    if remote is not None:
        answered = remote.dispute(session_id, roll_id, reason)
        by, checkpoint = str(answered.get("by")), answered.get("checkpoint")
        checkpoint = checkpoint if isinstance(checkpoint, str) else None
    else:
        opened = app.app().open_dispute(app.actor, session_id, roll_id, reason)
        by, checkpoint = app.actor, opened.checkpoint
    witness(app, session_id, checkpoint)
    if app.json:
        emit_json(
            {
                "session_id": session_id,
                "roll_id": roll_id,
                "dispute": "open",
                "by": by,
                "checkpoint": checkpoint,
            }
        )
        return
    click.echo(
        shown(
            f"roll {roll_id} disputed by {by}; the GM can run "
            f"`diceledger dispute review {session_id} {roll_id}`"
        )
    )


@dispute.command("review")
@SESSION
@ROLL
@json_option
@pass_app
def review(app: AppContext, session_id: str, roll_id: int) -> None:
    """Show every die of a roll with its provenance, R14 step by step, and the proofs (GM).

    \b
    Example:
      diceledger --as bob check "$S" "1d20+1" --target 12
      diceledger --as bob dispute open "$S" 1 --reason "the die fell off"
      diceledger --as gm dispute review "$S" 1
    """
    report = app.app().review(app.actor, session_id, roll_id)
    if app.json:
        emit_json(report)
        return
    _print_review(report)


def _print_review(report: dict[str, Any]) -> None:
    click.echo(
        shown(f"roll {report['roll_id']} of {report['session_id']}: {report['status']}")
        + (" (void)" if report["voided"] else "")
    )
    for d in report["disputes"]:
        click.echo(shown(f"  disputed by {d['by']}: {d['reason']}"))
    click.echo("dice, in draw order:")
    for die in report["dice"]:
        where = (
            f"epoch {die['epoch']} nonce {die['nonce']} block {die['block']} word {die['word']}"
            if die["source"] == "seeded"
            else f"typed in by {die['typed_by']}"
        )
        verified = die["verified"] if die["source"] == "seeded" else "cannot be verified"
        # An opposed check's dice name their side and round: each side rolls its own (R6).
        side = f"{die['side_name']}, round {die['round']}: " if "side_name" in die else ""
        why = die["reason"] + (
            f" step {die['step']} of #{die['parent']}"
            if die["reason"] == "explosion"
            else f" of #{die['parent']}"
            if die["reason"] == "reroll"
            else ""
        )
        click.echo(
            shown(
                f"  {side}#{die['index']} d{die['sides']} = {die['face']}  {why}; {where}: "
                f"{verified}"
            )
        )
    click.echo("resolution (R14):")
    for step in report["steps"]:
        click.echo(f"  {shown(step)}")
    if report["sheet"]:
        click.echo("sheet values read (as the sheet stood at the request):")
    for value in report["sheet"]:
        where = "DC from " if value["use"] == "dc" else ""
        source = (
            f"set at version {value['set_at']} by {value['set_by']} ({value['set_event']})"
            if value["set_event"]
            else f"version {value['set_at']} is not in the log"
        )
        agrees = "" if value["matches"] else f"; the sheet said {value['on_sheet']}: MISMATCH"
        click.echo(
            shown(
                f"  {where}{value['character']} @{value['name']} {value['recorded']:+d}, "
                f"{source}{agrees}"
            )
        )
    click.echo("in the log:")
    for event in report["events"]:
        click.echo(
            f"  position {event['position']} v{event['stream_version']} "
            f"{event['event_type']} {event['hash'][:16]}..."
        )
    verdict = (
        "resolves again to the same dice and outcome"
        if report["roll_verified"]
        else ("DOES NOT resolve again: " + "; ".join(report["roll_problems"]))
    )
    click.echo(shown(f"this roll: {verdict}"))
    session = report["session_verification"]
    first = session["first_failure"]
    click.echo(
        "session log: "
        + (
            "verified"
            if first is None
            else shown(f"FAILED at position {first['position']}: {first['reason']}")
        )
    )
    for other in report["other_disputes_of_player"]:
        click.echo(f"other dispute of this player: roll {other['roll_id']}: {other['outcome']}")


@dispute.command("resolve")
@SESSION
@ROLL
@click.option("--uphold", "outcome", flag_value="upheld", help="The roll stands.")
@click.option(
    "--void",
    "outcome",
    flag_value="voided",
    help="The roll is void: statistics leave it out; it may be rolled again.",
)
@click.option("--note", help="A note kept with the ruling.")
@json_option
@pass_app
def resolve(
    app: AppContext, session_id: str, roll_id: int, outcome: str | None, note: str | None
) -> None:
    """Rule on a dispute (GM): uphold the roll or void it; nothing is edited or deleted.

    \b
    Example:
      diceledger --as bob check "$S" "1d20+1" --target 12
      diceledger --as bob dispute open "$S" 1 --reason "the die fell off"
      diceledger --as gm dispute resolve "$S" 1 --void --note "fell off"
    """
    if outcome is None:
        raise click.UsageError("give --uphold or --void")
    ruled = app.app().resolve_dispute(
        app.actor, session_id, cmd.ResolveDispute(roll_id, cmd.Ruling(outcome), note)
    )
    witness(app, session_id, ruled.checkpoint)
    if app.json:
        emit_json(
            {
                "session_id": session_id,
                "roll_id": roll_id,
                "outcome": outcome,
                "note": note,
                "checkpoint": ruled.checkpoint,
            }
        )
        return
    hint = f"; roll it again with `--replaces {roll_id}`" if outcome == "voided" else ""
    click.echo(f"roll {roll_id} {outcome}{hint}")

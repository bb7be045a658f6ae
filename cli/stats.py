"""``diceledger stats``: per-player statistics from the statistics projection."""

from __future__ import annotations

import json
from typing import Any

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import shown
from diceledger.cli.projections import catching_up
from diceledger.domain.projections.report import ACROSS_SESSIONS, PlayerReport
from diceledger.domain.projections.tidy import reports_json, tidy_csv


@click.command("stats")
@click.option("--session", "session_id", metavar="SESSION", help="Only this session.")
@click.option(
    "--campaign",
    "campaign_id",
    metavar="ID",
    help="Every session of this campaign: a row per session, then the campaign's totals.",
)
@click.option("--player", metavar="NAME", help="Only this player.")
@click.option(
    "--format",
    "format_",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="Table for people, tidy CSV for spreadsheets and pandas, JSON for programs.",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to FILE."
)
@json_option
@pass_app
def stats(
    app: AppContext,
    session_id: str | None,
    campaign_id: str | None,
    player: str | None,
    format_: str,
    output: str | None,
) -> None:
    """Show per-player statistics: rolls, success and luck, dice fairness, rerolls, disputes.

    Numbers come from the statistics projection, brought up to date first. A GM of a
    session (pick the viewer with --as) sees all of its rolls; anyone else sees the blind
    rolls only once revealed. Voided rolls are left out and counted. Columns and formulas:
    docs/statistics.md.

    With --campaign, the sessions of the campaign you are a member of (as --as), each
    as you may see it there: one report per session and player, in the order the
    sessions were added (luck over time), then each player's over the whole campaign
    (session "ALL"), summed from the same counters; then the same per character.

    \b
    Examples:
      diceledger --as gm stats --session "$S" --format csv -o tomb.csv
      C=$(diceledger --as gm campaign start "Ashen Crown")
      diceledger --as gm stats --campaign "$C" --format json
    """
    if session_id is not None and campaign_id is not None:
        raise click.UsageError("--session and --campaign cannot be used together")
    remote = app.remote()
    if remote is not None:
        if session_id is None or campaign_id is not None:
            raise click.UsageError("with --server, stats is of one session: give --session")
        given = remote.statistics(session_id, player)
        format_ = "json" if app.json else format_
        _write(render(list(given.reports), format_, given.viewer), output, len(given.reports))
        return
    application = app.app()
    pending = application.pending_statistics_events()
    if app.json:
        format_ = "json"
    with catching_up(pending, "statistics", app.json) as progress:
        if campaign_id is None:
            result = application.statistics(app.actor, session_id, player, progress)
            reports, document = list(result.reports), None
        else:
            found = application.campaigns.statistics(app.actor, campaign_id, player, None, progress)
            reports, document = list(found.reports), found.as_dict()
    where = "the whole campaign" if campaign_id is not None else "all sessions"
    if format_ == "json" and document is not None:
        text = json.dumps(document, ensure_ascii=False) + "\n"
    elif campaign_id is not None and format_ == "csv":
        text = found.csv
    else:
        text = render(reports, format_, app.actor, where)
        if campaign_id is not None and found.characters:
            text += "per character:\n" + "".join(
                table_text(report, where, "character ") for report in found.characters
            )
    _write(text, output, len(reports))


def _write(text: str, output: str | None, reports: int) -> None:
    if output is None:
        click.echo(text, nl=False)
        return
    with open(output, "w", encoding="utf-8", newline="") as file:
        file.write(text)
    click.echo(shown(f"wrote {reports} player reports to {output}"), err=True)


def render(
    reports: list[PlayerReport], format_: str, viewer: str, where: str = "all sessions"
) -> str:
    """Return the reports as CSV, JSON or a table; ``where`` names the totals' scope."""
    if format_ == "csv":
        return tidy_csv(reports)
    if format_ == "json":
        return json.dumps(reports_json(reports, viewer), ensure_ascii=False) + "\n"
    if not reports:
        return "no statistics yet: no resolved rolls you may see\n"
    return "".join(table_text(report, where) for report in reports)


def table_text(report: PlayerReport, across: str = "all sessions", whose: str = "") -> str:
    """Return a few human lines for one report (``whose``: "character " for a character's)."""
    g: dict[str, dict[str, Any]] = report.groups
    where = across if report.session_id == ACROSS_SESSIONS else report.session_id
    rolls, outcomes, luck = g["rolls"], g["outcomes"], g["luck"]
    kinds = ", ".join(f"{k} {v}" for k, v in rolls.items() if k != "total" and v)
    lines = [
        shown(f"{whose}{report.player} in {where}"),
        f"  rolls {rolls['total']}" + (f" ({kinds})" if kinds else ""),
    ]
    if outcomes["made"]:
        lines.append(
            f"  checks won {outcomes['won']}/{outcomes['made']} "
            f"({_pct(outcomes['success_rate'])}), "
            f"expected {luck['expected']:.2f}, luck {luck['luck']:+.2f}, z {_num(luck['z_score'])}"
        )
    for die in report.dice:
        f = die.figures
        note = (
            f"; too few rolls (fewer than 5 per face); about {f['rolls_needed']} rolls would "
            "show a face favoured twice"
            if f["too_few"]
            else ""
        )
        lines.append(
            f"  d{die.sides}: {f['rolls']} dice, mean {f['mean']:.2f} (fair {f['fair_mean']}), "
            f"chi-square {f['chi_square']:.2f} (df {f['df']}), p {f['p_value']:.3f}{note}"
        )
    ex, re_, di = g["explosions"], g["rerolls"], g["disputes"]
    lines.append(
        f"  explosions {ex['count']} (longest chain {ex['longest_chain']}); rerolls "
        f"{re_['spent']} (gain {re_['gain']}, {_num(re_['mean_gain'])} each); disputes raised "
        f"{di['raised']} (upheld {di['upheld']}, voided {di['voided']})"
    )
    src, out = g["dice_source"], g["excluded"]
    lines.append(
        f"  dice {src['seeded']} seeded, {src['manual']} typed in; left out: "
        f"{out['voided']} voided, {out['hidden']} hidden"
    )
    return "\n".join(lines) + "\n"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"

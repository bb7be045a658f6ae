"""``diceledger odds``: exact odds of a roll, a check or an opposed check; no database."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from fractions import Fraction

import click

from diceledger.cli.options import F, WholeNumber
from diceledger.domain.odds import Distribution
from diceledger.domain.odds.bins import bins
from diceledger.infra.app.odds import (
    OddsQuery,
    Side,
    SingleOdds,
    VersusOdds,
    describe,
    odds_of,
    reroll_policy,
)

MAX_ROWS = 20
BAR_WIDTH = 50
SHORT_FRACTION = 30  # longer exact fractions are left to --json
TAIL = Fraction(1, 2000)  # a histogram tail lighter than this is grouped into one row


def _amount_option(flag: str, help: str) -> Callable[[F], F]:
    """A repeatable amount N >= 0, such as ``--adv 1`` (the values are summed)."""
    return click.option(flag, multiple=True, type=WholeNumber(min=0), metavar="N", help=help)


def _percent(value: Fraction) -> str:
    if 0 < value < Fraction(1, 10000):
        return "<0.01%"
    if Fraction(9999, 10000) < value < 1:
        return ">99.99%"
    return f"{float(value) * 100:.2f}%"


def _chance(value: Fraction) -> str:
    text = str(value)
    return f"{text} ({_percent(value)})" if len(text) <= SHORT_FRACTION else _percent(value)


def _mean(value: Fraction) -> str:
    text = f"{float(value):.4f}".rstrip("0").rstrip(".")
    return f"{value} = {text}" if len(str(value)) <= 12 and value.denominator != 1 else text


def _use_color() -> bool:
    return not os.environ.get("NO_COLOR")


def histogram(dist: Distribution, target: int | None) -> list[str]:
    """Return text rows of the distribution's totals, each with its chance and a bar."""
    rows = bins(dist, MAX_ROWS, TAIL, target)
    label_width = max(len(row.label) for row in rows)
    top = max(row.probability for row in rows) or Fraction(1)
    lines = []
    for row in rows:
        bar = ("#" if row.meets_target else "=") * round(BAR_WIDTH * row.probability / top)
        if _use_color():
            bar = click.style(bar, fg="green" if row.meets_target else None)
        lines.append(f"  {row.label:>{label_width}} {_percent(row.probability):>7} {bar}")
    return lines


def _single_report(result: SingleOdds) -> None:
    dist, target, success = result.distribution, result.target, result.success
    heading = describe(result.spec, result.rerolls)
    click.echo(heading + ("" if target is None else f" vs target {target}"))
    if success is not None:
        click.echo(f"  success  {_chance(success)}")
    _say_reroll_policy(result.rerolls)
    _say_best(result)
    click.echo(f"  mean     {_mean(dist.mean)}")
    if dist.truncated_mass:
        click.echo(f"  explosion chains cut at 1e-15: {float(dist.truncated_mass):.1e} of mass")
    click.echo("  total      P")
    for line in histogram(dist, target):
        click.echo(line)


def _opposed_report(result: VersusOdds) -> None:
    odds = result.odds
    mine, theirs = (
        describe(result.spec, result.rerolls),
        describe(result.other, result.other_rerolls),
    )
    click.echo(f"{mine}  versus  {theirs}")
    click.echo(f"  win   {_chance(odds.win)}")
    click.echo(f"  lose  {_chance(odds.lose)}")
    if result.rerolls or result.other_rerolls:
        # What a side leaves unspent carries into the next round, so rounds differ.
        click.echo(f"  tie   {_chance(odds.tie)} in the first round, then both roll again")
    else:
        click.echo(f"  tie   {_chance(odds.tie)} per round, then both roll again")
    click.echo(f"  means {_mean(result.mean)} vs {_mean(result.other_mean)}")
    _say_reroll_policy(result.rerolls, result.other_rerolls)


def _say_best(result: SingleOdds) -> None:
    best = result.best()
    if isinstance(best, Fraction):
        click.echo(f"  rerolling as well as possible (any die, whenever it helps): {_chance(best)}")
    elif best is not None:
        click.echo(f"  no exact figure for rerolling as well as possible: {best}")


def _say_reroll_policy(*allowances: int) -> None:
    policy = reroll_policy(*allowances)
    if policy is not None:
        click.echo(f"  assumes {policy}")


@click.command("odds")
@click.argument("expression")
@click.option(
    "--target", type=WholeNumber(), metavar="N", help="Target a check must meet or beat (R3)."
)
@click.option(
    "--dc", type=WholeNumber(), metavar="MOD", help="Determined Check: target 10 + MOD (R4)."
)
@_amount_option("--adv", "Advantage N on the check die; repeatable, summed (R7).")
@_amount_option("--dis", "Disadvantage N on the check die; repeatable, summed (R7).")
@click.option("--median", is_flag=True, help="Median check: the middle of three dice (R8).")
@_amount_option("--eased", "Eased N, added to the result; repeatable (R9).")
@_amount_option("--hindered", "Hindered N, taken from the result; repeatable (R9).")
@click.option(
    "--reroll",
    type=WholeNumber(min=0),
    default=0,
    metavar="N",
    help="Reroll allowance spent by the default policy (R11); with --vs, your side's.",
)
@click.option("--no-explode", is_flag=True, help="No die explodes (R13).")
@click.option("--vs", "versus", metavar="EXPR", help="Opposed check against this roll (R6).")
@_amount_option("--vs-adv", "Advantage N of the opposing side.")
@_amount_option("--vs-dis", "Disadvantage N of the opposing side.")
@click.option("--vs-median", is_flag=True, help="The opposing side makes a median check.")
@_amount_option("--vs-eased", "Eased N of the opposing side.")
@_amount_option("--vs-hindered", "Hindered N of the opposing side.")
@click.option(
    "--vs-reroll",
    type=WholeNumber(min=0),
    default=0,
    metavar="N",
    help="Reroll allowance of the opposing side, spent by the default policy.",
)
@click.option("--json", "as_json", is_flag=True, help="Print exact fractions and floats as JSON.")
@click.pass_context
def odds(
    ctx: click.Context,
    expression: str,
    target: int | None,
    dc: int | None,
    adv: tuple[int, ...],
    dis: tuple[int, ...],
    median: bool,
    eased: tuple[int, ...],
    hindered: tuple[int, ...],
    reroll: int,
    no_explode: bool,
    versus: str | None,
    vs_adv: tuple[int, ...],
    vs_dis: tuple[int, ...],
    vs_median: bool,
    vs_eased: tuple[int, ...],
    vs_hindered: tuple[int, ...],
    vs_reroll: int,
    as_json: bool,
) -> None:
    """Show the exact odds of a roll or check: success chance, mean and totals.

    Explosions (R12) are included; Eased/Hindered, advantage and median follow R7-R9.

    \b
    Examples:
      diceledger odds "1d20+5" --target 15 --adv 1
      diceledger odds "2d6+3" --json
      diceledger odds "1d20+3" --vs "1d20+1" --vs-adv 1
      diceledger odds "1d20+3" --vs "1d20+1" --reroll 1 --vs-reroll 2
    """
    as_json = as_json or bool(ctx.obj is not None and getattr(ctx.obj, "json", False))
    if target is not None and dc is not None:
        raise click.UsageError("give either --target or --dc, not both")
    vs_options = vs_adv or vs_dis or vs_median or vs_eased or vs_hindered or vs_reroll
    if versus is None and vs_options:
        raise click.UsageError(
            "--vs-adv, --vs-dis, --vs-median, --vs-eased, --vs-hindered, --vs-reroll need --vs"
        )
    if versus is not None and (target is not None or dc is not None):
        raise click.UsageError("an opposed check (--vs) takes no --target or --dc")
    query = OddsQuery(
        Side(expression, adv, dis, median, eased, hindered),
        target=target,
        dc=dc,
        reroll=reroll,
        exploding=not no_explode,
        versus=None
        if versus is None
        else Side(versus, vs_adv, vs_dis, vs_median, vs_eased, vs_hindered),
        vs_reroll=vs_reroll,
    )
    result = odds_of(query)
    if as_json:
        click.echo(json.dumps(result.as_json()))
    elif isinstance(result, SingleOdds):
        _single_report(result)
    else:
        _opposed_report(result)

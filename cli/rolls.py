"""``diceledger roll | check | save | opposed | roll-side | reroll | accept | reveal``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import click

from diceledger.cli.calls import Rolled
from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.options import (
    AMOUNT,
    BLIND_OPTION,
    FACES,
    MODE_OPTION,
    ROLL,
    SESSION,
    WHOLE,
    CheckOptions,
    F,
    RollOptions,
    WholeNumber,
    check_options,
    roll_options,
    whole_number,
)
from diceledger.cli.output import emit_json, shown
from diceledger.cli.remote_calls import RemoteRoll
from diceledger.cli.render import roll_text, view_text
from diceledger.cli.witness import witness
from diceledger.domain.dice.request import RerollScope
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount
from diceledger.domain.session.modes import RollMode
from diceledger.infra.app.roll_form import FormKind, OtherSide, RollForm

EXPR = click.argument("expression", metavar="EXPR")
# A roll or check may instead be one the roller's character saved (``--saved NAME``).
EXPR_OR_SAVED = click.argument("expression", metavar="[EXPR]", required=False, default="")
SAVED = click.option(
    "--saved",
    metavar="NAME",
    help="Roll one of your character's saved rolls (its kind and expression) instead of EXPR.",
)
PLAIN_ROLL = CheckOptions()  # a plain roll has no check die to give advantage to


def _show(app: AppContext, result: Rolled) -> None:
    witness(app, result.session_id, result.checkpoint)
    if app.json:
        emit_json({**result.view, "checkpoint": result.checkpoint})
    elif isinstance(result, RemoteRoll):
        click.echo(view_text(result.view))
    else:
        click.echo(roll_text(result.roll))


class SignedAmount(click.ParamType):
    """``MOD`` or ``MOD:label`` where MOD may be negative (a DC's attribute MOD), or
    ``@NAME``: the MOD of that name on the sheet of the save's origin (R4)."""

    name = "MOD[:LABEL]|@NAME"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[int, str | None] | str:
        if str(value).startswith("@"):
            return str(value)[1:]
        number, _, label = str(value).partition(":")
        try:
            return whole_number(number), label.strip() or None
        except ValueError:
            self.fail(
                f"'{shown(value)}' is not a whole number, optionally with ':label'", param, ctx
            )


DC = click.option(
    "--dc",
    type=SignedAmount(),
    help="Determined Check: target = 10 + MOD (R4), e.g. --dc 3:WIS; on a save, --dc @WIS "
    "takes the MOD from the sheet of the character --against names.",
)
# A DC given as a number (and label), or as the name of a sheet value (``@WIS``).
DcGiven = tuple[int, str | None] | str
TARGET = click.option("--target", type=WHOLE, help="The number to meet or beat (R3).")


def _request(
    app: AppContext,
    session_id: str,
    kind: FormKind,
    expression: str,
    options: RollOptions,
    check: CheckOptions = PLAIN_ROLL,
    target: int | None = None,
    dc: DcGiven | None = None,
    against: str | None = None,
    saved: str | None = None,
) -> None:
    if not expression and saved is None:
        raise click.UsageError("give EXPR, or --saved NAME")
    number, label = dc if isinstance(dc, tuple) else (None, None)
    form = RollForm(
        kind=kind,
        expression=expression,
        saved=saved,
        target=target,
        dc=number,
        dc_label=label,
        dc_from=dc if isinstance(dc, str) else None,  # the origin's sheet gives the MOD (R4)
        against=against,
        adv=check.advantage,
        dis=check.disadvantage,
        median=check.median,
        eased=options.eased,
        hindered=options.hindered,
        reroll=options.rerolls,
        reroll_scope=options.reroll_scope,
        auto_reroll=options.auto_reroll,
        action=options.action_id,
        mode=options.mode,
        blind=options.blind,
        for_=options.on_behalf_of,
        label=options.label,
        salt=options.salt,
        faces=options.faces,
        replaces=options.replaces,
        no_explode=options.no_explode,
    )
    _show(app, app.calls().request_roll(session_id, form.command(app.actor)))


@click.command("roll")
@SESSION
@EXPR_OR_SAVED
@SAVED
@click.option(
    "--kind",
    type=click.Choice(["effect", "damage"]),
    default="effect",
    show_default=True,
    help="What the roll is for; damage rerolls apply only to damage rolls.",
)
@roll_options
@json_option
@pass_app
def roll(
    app: AppContext,
    session_id: str,
    expression: str,
    saved: str | None,
    kind: Literal["effect", "damage"],  # click.Choice holds it to these
    options: RollOptions,
) -> None:
    """Roll dice: a damage or effect roll, every die counting and exploding (R2, R12).

    A saved roll (--saved) brings its own kind and expression, and its name as the label.

    \b
    Example:
      diceledger --as ann roll "$S" "2d6+3[STR]" --kind damage
      diceledger --as ann character create "$S" Thalia
      diceledger --as ann character set "$S" Thalia STR=3
      diceledger --as ann character save-roll "$S" Thalia Greataxe "1d12+@STR" --kind damage
      diceledger --as ann roll "$S" --saved Greataxe
    """
    _request(
        app,
        session_id,
        "damage" if kind == "damage" else "effect",
        expression,
        options,
        saved=saved,
    )


@click.command("check")
@SESSION
@EXPR_OR_SAVED
@SAVED
@TARGET
@DC
@check_options
@roll_options
@json_option
@pass_app
def check(
    app: AppContext,
    session_id: str,
    expression: str,
    saved: str | None,
    target: int | None,
    dc: DcGiven | None,
    check: CheckOptions,
    options: RollOptions,
) -> None:
    """Make a check against a target or a DC (R3, R4), with advantage, median and ease.

    \b
    Example:
      diceledger --as ann check "$S" "1d20+5" --target 15 --adv 1:flank
    """
    _request(app, session_id, "check", expression, options, check, target, dc, saved=saved)


@click.command("save")
@SESSION
@EXPR
@TARGET
@DC
@click.option("--against", required=True, metavar="ORIGIN", help="What the save avoids (R5).")
@check_options
@roll_options
@json_option
@pass_app
def save(
    app: AppContext,
    session_id: str,
    expression: str,
    target: int | None,
    dc: DcGiven | None,
    against: str,
    check: CheckOptions,
    options: RollOptions,
) -> None:
    """Make a save: a check to avoid an effect, recorded with its origin (R5).

    \b
    Example:
      diceledger --as bob save "$S" "1d20+1" --dc 3:WIS --against "banshee wail"
      diceledger --as bob character create "$S" Brak
      diceledger --as bob character set "$S" Brak CON=2
      diceledger --as gm character create "$S" Banshee --npc
      diceledger --as gm character set "$S" Banshee WIS=3
      diceledger --as bob save "$S" "1d20+@CON" --dc @WIS --against Banshee
    """
    _request(app, session_id, "save", expression, options, check, target, dc, against)


def _other_sides(flag: str, source: str) -> Callable[[F], F]:
    """Return the option of one source of the other side; a GM's to give a member (R6)."""
    help_ = f"{source} X for the other side (a GM's to give a member)."
    return click.option(flag, type=AMOUNT, multiple=True, help=help_)


@click.command("opposed")
@SESSION
@EXPR
@click.option(
    "--vs",
    "versus",
    nargs=2,
    required=True,
    metavar="NAME EXPR",
    help="The other side: a member, or (GM only) an NPC, and its expression.",
)
@check_options
@click.option("--eased", type=AMOUNT, multiple=True, help="Eased X for your side (repeatable).")
@click.option(
    "--hindered", type=AMOUNT, multiple=True, help="Hindered X for your side (repeatable)."
)
@_other_sides("--vs-adv", "Advantage")
@_other_sides("--vs-dis", "Disadvantage")
@_other_sides("--vs-eased", "Eased")
@_other_sides("--vs-hindered", "Hindered")
@click.option("--for", "on_behalf_of", metavar="NAME", help="GM only: roll your side for another.")
@click.option("--action", "action_id", metavar="ID", help="Group this roll with an action.")
@MODE_OPTION
@BLIND_OPTION
@click.option("--no-explode", is_flag=True, help="No die of this check explodes.")
@click.option("--salt", default="", help="Extra entropy mixed into this roll's dice.")
@click.option("--label", help="A note shown with the roll.")
@click.option(
    "--faces",
    type=FACES,
    help="Physical dice typed in for your side, round by round (and for an NPC's side, by a GM).",
)
@click.option(
    "--reroll",
    "rerolls",
    type=WholeNumber(min=0),
    default=0,
    help="Your side's reroll allowance, the action's (R11).",
)
@click.option(
    "--reroll-scope",
    type=click.Choice(["effect", "damage"]),
    default="effect",
    show_default=True,
    help="Which rolls of the action your rerolls may touch (damage: not this check).",
)
@click.option(
    "--vs-reroll",
    type=WholeNumber(min=0),
    default=0,
    help="The other side's reroll allowance, its own for this check.",
)
@click.option(
    "--vs-rolls-own",
    is_flag=True,
    help="The other side's member rolls their own dice in every round (`roll-side`), "
    "typed in from physical dice or by the server; the check waits for them.",
)
@json_option
@pass_app
def opposed(
    app: AppContext,
    session_id: str,
    expression: str,
    versus: tuple[str, str],
    check: CheckOptions,
    eased: tuple[Amount, ...],
    hindered: tuple[Amount, ...],
    vs_adv: tuple[Amount, ...],
    vs_dis: tuple[Amount, ...],
    vs_eased: tuple[Amount, ...],
    vs_hindered: tuple[Amount, ...],
    on_behalf_of: str | None,
    action_id: str | None,
    mode: str | None,
    blind: bool,
    no_explode: bool,
    salt: str,
    label: str | None,
    faces: tuple[int, ...] | None,
    rerolls: int,
    reroll_scope: str,
    vs_reroll: int,
    vs_rolls_own: bool,
) -> None:
    """Roll an opposed check: both sides at once, again on a tie (R6).

    A side with rerolls (--reroll, --vs-reroll) takes its turn before the totals are
    compared: yours first, then the other side's (`reroll` or `accept`). What a side
    leaves unspent carries into the next round after a tie. With --vs-rolls-own the
    other member rolls their own dice (`roll-side`) before anyone rerolls.

    \b
    Examples:
      diceledger --as ann opposed "$S" "1d20+2" --vs bob "1d20"
      diceledger --as ann opposed "$S" "1d20+2" --vs bob "1d20" --reroll 1 --vs-reroll 1
      diceledger --as ann opposed "$S" "1d20+2" --vs bob "1d20" --vs-rolls-own
    """
    name, other = versus
    form = RollForm(
        kind="opposed",
        expression=expression,
        adv=check.advantage,
        dis=check.disadvantage,
        median=check.median,
        eased=eased,
        hindered=hindered,
        reroll=rerolls,
        reroll_scope=RerollScope(reroll_scope),
        action=action_id,
        mode=None if mode is None else RollMode(mode),
        blind=blind,
        for_=on_behalf_of,
        label=label,
        salt=salt,
        faces=faces,
        no_explode=no_explode,
        vs=OtherSide(name, other, vs_adv, vs_dis, vs_eased, vs_hindered, vs_reroll, vs_rolls_own),
    )
    _show(app, app.calls().request_roll(session_id, form.command(app.actor)))


@click.command("roll-side")
@SESSION
@ROLL
@click.option(
    "--faces",
    type=FACES,
    help="Your physical dice typed in, in draw order (an explosion's dice after its die); "
    "without them the server rolls your side.",
)
@json_option
@pass_app
def roll_side(
    app: AppContext, session_id: str, roll_id: int, faces: tuple[int, ...] | None
) -> None:
    """Roll your own side of an opposed check that waits for your dice (R6).

    A check requested with --vs-rolls-own waits, in every round, for the other member to
    roll their side; then each side's rerolls, then the totals are compared.

    \b
    Example:
      diceledger --as ann opposed "$S" "1d20+2" --vs bob "1d20" --vs-rolls-own
      diceledger --as bob roll-side "$S" 1 --faces 17
    """
    _show(app, app.calls().roll_side(session_id, cmd.RollSide(roll_id, faces)))


@click.command("reroll")
@SESSION
@ROLL
@click.option(
    "--die",
    "dice",
    type=WHOLE,
    multiple=True,
    required=True,
    metavar="INDEX",
    help="A die to reroll, by its index (repeatable).",
)
@click.option(
    "--faces",
    type=FACES,
    help="Physical dice typed in for the rerolled dice (then, should an opposed check tie, "
    "for your side of its next round).",
)
@json_option
@pass_app
def reroll(
    app: AppContext,
    session_id: str,
    roll_id: int,
    dice: tuple[int, ...],
    faces: tuple[int, ...] | None,
) -> None:
    """Spend rerolls of the roll's action on the chosen dice (R11).

    On an opposed check, the dice are those of the side whose turn it is, in the current
    round; only that side's roller (a GM for an NPC) may reroll them.

    \b
    Example:
      diceledger --as bob roll "$S" "3d6" --kind damage --reroll 2
      diceledger --as bob reroll "$S" 1 --die 0 --die 2
    """
    _show(app, app.calls().reroll(session_id, cmd.Reroll(roll_id, dice, faces)))


@click.command("accept")
@SESSION
@ROLL
@click.option(
    "--faces",
    type=FACES,
    help="Physical dice typed in for your side of an opposed check's next round, should it tie.",
)
@json_option
@pass_app
def accept(app: AppContext, session_id: str, roll_id: int, faces: tuple[int, ...] | None) -> None:
    """Accept a roll as it stands, leaving its rerolls unspent.

    On an opposed check, this ends the turn of the side whose turn it is for this round.

    \b
    Example:
      diceledger --as bob check "$S" "1d20+1" --target 12 --reroll 1
      diceledger --as bob accept "$S" 1
    """
    _show(app, app.calls().accept(session_id, roll_id, faces))


@click.command("reveal")
@SESSION
@ROLL
@json_option
@pass_app
def reveal(app: AppContext, session_id: str, roll_id: int) -> None:
    """Show a blind roll to the players (GM only).

    \b
    Example:
      diceledger --as gm roll "$S" "1d20+2" --blind --for ghoul --label perception
      diceledger --as gm reveal "$S" 1
    """
    _show(app, app.calls().reveal_roll(session_id, roll_id))


@click.group("seed")
def seed() -> None:
    """Reveal the session's seed so anyone can re-derive its dice."""


@seed.command("reveal")
@SESSION
@json_option
@pass_app
def seed_reveal(app: AppContext, session_id: str) -> None:
    """Reveal the current seed (GM only) and commit to a new one for later rolls.

    \b
    Example:
      diceledger --as gm seed reveal "$S"
    """
    result = app.app().reveal_seed(app.actor, session_id)
    revealed, current = result.revealed, result.current
    witness(app, session_id, result.checkpoint)
    if app.json:
        emit_json(dict(result.answer()))
        return
    click.echo(f"epoch {revealed.number} seed: {revealed.seed}")  # hex from the vault
    click.echo(f"epoch {current.number} commitment: {current.commitment}")

"""Option types shared by the roll commands: labelled amounts and typed-in faces."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, TypeVar, cast

import click

from diceledger.cli.output import shown
from diceledger.domain.dice.request import RerollScope
from diceledger.domain.session.events import Amount
from diceledger.domain.session.modes import RollMode

F = TypeVar("F", bound=Callable[..., Any])
# Python's int() also reads other scripts' digits (Arabic-Indic, Devanagari ...) and
# underscores; a number on the command line is written in ASCII digits only.
_WHOLE = re.compile(r"\s*[+-]?[0-9]+\s*", re.ASCII)


def whole_number(text: str) -> int:
    """Return the integer ``text`` spells in ASCII digits; raise ValueError otherwise."""
    if not _WHOLE.fullmatch(text):
        raise ValueError(f"not a whole number in ASCII digits: {text!r}")
    return int(text)


class WholeNumber(click.IntRange):
    """An integer option written in ASCII digits, optionally within a range."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            try:
                whole_number(value)
            except ValueError:
                self.fail(f"'{shown(value)}' is not a whole number (digits 0-9)", param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        # click describes a range with neither bound as "x<=None"; there is nothing to say.
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()


class AmountType(click.ParamType):
    """``N`` or ``N:label``: one source of Advantage, Disadvantage, Eased or Hindered."""

    name = "N[:LABEL]"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Amount:
        if isinstance(value, Amount):
            return value
        amount, _, label = str(value).partition(":")
        try:
            number = whole_number(amount)
        except ValueError:
            self.fail(
                f"'{shown(value)}' is not a whole number, optionally with ':label'", param, ctx
            )
        if number < 0:
            self.fail(f"'{shown(value)}' must not be negative", param, ctx)
        return Amount(number, label.strip() or None)


class FacesType(click.ParamType):
    """``17,4,6``: faces of physical dice, in draw order."""

    name = "F,F,..."

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[int, ...]:
        if isinstance(value, tuple):
            return value
        try:
            faces = tuple(whole_number(part) for part in str(value).split(",") if part.strip())
        except ValueError:
            self.fail(
                f"'{shown(value)}' is not a comma-separated list of faces (digits 0-9)", param, ctx
            )
        if not faces:
            self.fail("give at least one face", param, ctx)
        return faces


AMOUNT = AmountType()
FACES = FacesType()
SESSION = click.argument("session_id", metavar="SESSION")
WHOLE = WholeNumber()
ROLL = click.argument("roll_id", metavar="ROLL", type=WHOLE)


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """The check-die options of a check or save: advantage sources and median (R7, R8)."""

    advantage: tuple[Amount, ...] = ()
    disadvantage: tuple[Amount, ...] = ()
    median: bool = False


@dataclass(frozen=True, slots=True)
class RollOptions:
    """The options every roll shares: ease, rerolls, visibility, dice and provenance."""

    eased: tuple[Amount, ...] = ()
    hindered: tuple[Amount, ...] = ()
    rerolls: int = 0
    reroll_scope: RerollScope = RerollScope.EFFECT
    auto_reroll: bool = False
    action_id: str | None = None
    mode: RollMode | None = None
    blind: bool = False  # the older way to say mode blind; the roll form settles a clash
    on_behalf_of: str | None = None
    no_explode: bool = False
    salt: str = ""
    label: str | None = None
    replaces: int | None = None
    faces: tuple[int, ...] | None = None


def _gathered(
    function: F, into: str, build: Callable[[dict[str, Any]], object], names: tuple[str, ...]
) -> F:
    """Wrap a command so the options ``names`` reach it as one typed object, ``into``."""

    @functools.wraps(function)
    def command(*args: Any, **kwargs: Any) -> Any:
        kwargs[into] = build({name: kwargs.pop(name) for name in names})
        return function(*args, **kwargs)

    return cast(F, command)


def check_options(function: F) -> F:
    """Add the check-die options, handed to the command as ``check: CheckOptions``."""
    function = _gathered(
        function,
        "check",
        lambda given: CheckOptions(
            tuple(given["advantage"]), tuple(given["disadvantage"]), given["median"]
        ),
        ("advantage", "disadvantage", "median"),
    )
    for decorator in reversed(
        [
            click.option(
                "--adv",
                "advantage",
                type=AMOUNT,
                multiple=True,
                help="Advantage X from one source (repeatable), e.g. --adv 1:flank.",
            ),
            click.option(
                "--dis",
                "disadvantage",
                type=AMOUNT,
                multiple=True,
                help="Disadvantage X from one source (repeatable).",
            ),
            click.option(
                "--median", is_flag=True, help="Median check: three dice, the middle counts."
            ),
        ]
    ):
        function = decorator(function)
    return function


MODE_HELP = (
    "Who sees the roll until it is revealed: public (everyone), gm (you and the GMs), "
    "blind (the GMs only, not you), self (you only, until you reveal it or the session ends)."
)
MODE_OPTION = click.option("--mode", type=click.Choice([m.value for m in RollMode]), help=MODE_HELP)
BLIND_OPTION = click.option("--blind", is_flag=True, help="The same as --mode blind.")


def _roll_options(given: dict[str, Any]) -> RollOptions:
    return RollOptions(
        **{
            **given,
            "eased": tuple(given["eased"]),
            "hindered": tuple(given["hindered"]),
            "reroll_scope": RerollScope(given["reroll_scope"]),
            "mode": None if given["mode"] is None else RollMode(given["mode"]),
        }
    )


def roll_options(function: F) -> F:
    """Add the options every roll shares, handed to the command as ``options: RollOptions``."""
    function = _gathered(
        function, "options", _roll_options, tuple(f.name for f in fields(RollOptions))
    )
    for decorator in reversed(
        [
            click.option(
                "--eased",
                type=AMOUNT,
                multiple=True,
                help="Eased X (repeatable), e.g. --eased 2:bless.",
            ),
            click.option("--hindered", type=AMOUNT, multiple=True, help="Hindered X (repeatable)."),
            click.option(
                "--reroll",
                "rerolls",
                type=WholeNumber(min=0),
                default=0,
                help="Reroll allowance of the action (R11).",
            ),
            click.option(
                "--reroll-scope",
                type=click.Choice(["effect", "damage"]),
                default="effect",
                show_default=True,
                help="Which rolls of the action the rerolls may touch.",
            ),
            click.option(
                "--auto-reroll",
                is_flag=True,
                help="Let the default policy spend the rerolls now instead of waiting.",
            ),
            click.option(
                "--action",
                "action_id",
                metavar="ID",
                help="Group this roll with others of the same action (shared rerolls).",
            ),
            MODE_OPTION,
            BLIND_OPTION,
            click.option(
                "--for",
                "on_behalf_of",
                metavar="NAME",
                help="GM only: roll for another member or an NPC.",
            ),
            click.option("--no-explode", is_flag=True, help="No die of this roll explodes (R13)."),
            click.option("--salt", default="", help="Extra entropy mixed into this roll's dice."),
            click.option("--label", help="A note shown with the roll."),
            click.option(
                "--replaces",
                type=WHOLE,
                metavar="ROLL",
                help="Roll again, in place of a roll that a GM voided.",
            ),
            click.option(
                "--faces",
                type=FACES,
                help="Physical dice typed in, in draw order (recorded as manual).",
            ),
        ]
    ):
        function = decorator(function)
    return function

"""The `/dl` slash command as Discord registers it: one command, one subcommand per action.

The same definitions are sent by `diceledger discord register` and read back by the
server when an interaction arrives, so an option the server does not know is refused
instead of ignored. Discord caps a command at 25 subcommands of 25 options each, names at
32 characters, descriptions at 100, and the whole command at 4,000 characters of names,
descriptions and choices; tests/discord/test_commands.py checks all four.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from diceledger.domain.json import JsonObject, JsonValue
from diceledger.infra.app.roll_form import (
    MAX_AGAINST,
    MAX_AMOUNT,
    MAX_EXPRESSION,
    MAX_LABEL,
    MAX_REROLLS,
    MAX_TEXT,
)

COMMAND = "dl"
CHAT_INPUT = 1  # a slash command, as opposed to a context-menu command
IN_SERVERS = 0  # interaction context: a server's channels (not DMs)
SOURCES_LENGTH = 400  # a comma-separated list of sources, each checked by the session


class OptionType(IntEnum):
    """The option types diceledger uses, with Discord's numbers."""

    SUB_COMMAND = 1
    STRING = 3
    INTEGER = 4
    BOOLEAN = 5


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a subcommand."""

    name: str
    type: OptionType
    description: str
    required: bool = False
    choices: tuple[str, ...] = ()
    min_value: int | None = None
    max_value: int | None = None
    max_length: int | None = None

    def as_json(self) -> JsonObject:
        """Return the option as Discord's JSON."""
        document: JsonObject = {
            "type": int(self.type),
            "name": self.name,
            "description": self.description,
        }
        if self.required:
            document["required"] = True
        if self.choices:
            document["choices"] = [{"name": c, "value": c} for c in self.choices]
        for key, value in (
            ("min_value", self.min_value),
            ("max_value", self.max_value),
            ("max_length", self.max_length),
        ):
            if value is not None:
                document[key] = value
        return document


@dataclass(frozen=True, slots=True)
class Subcommand:
    """One action of `/dl`, with its options (required ones first, as Discord demands)."""

    name: str
    description: str
    options: tuple[Option, ...] = ()

    def as_json(self) -> JsonObject:
        """Return the subcommand as Discord's JSON."""
        options: list[JsonValue] = [option.as_json() for option in self.options]
        document: JsonObject = {
            "type": int(OptionType.SUB_COMMAND),
            "name": self.name,
            "description": self.description,
        }
        if options:
            document["options"] = options
        return document

    def option(self, name: str) -> Option | None:
        """Return the option called ``name``, or None."""
        return next((o for o in self.options if o.name == name), None)


def _text(name: str, description: str, required: bool = False, length: int = MAX_TEXT) -> Option:
    return Option(name, OptionType.STRING, description, required, max_length=length)


def _number(name: str, description: str, low: int, high: int, required: bool = False) -> Option:
    return Option(name, OptionType.INTEGER, description, required, min_value=low, max_value=high)


def _choice(name: str, description: str, *choices: str) -> Option:
    return Option(name, OptionType.STRING, description, choices=choices)


def _flag(name: str, description: str) -> Option:
    return Option(name, OptionType.BOOLEAN, description)


def _sources(name: str, what: str) -> Option:
    return _text(name, f"{what}, e.g. 1:flank,1:bless", length=SOURCES_LENGTH)


EXPRESSION = _text("expression", "Dice, e.g. 1d20+5", True, MAX_EXPRESSION)
TARGET = _number("target", "Number to meet or beat", -MAX_AMOUNT, MAX_AMOUNT)
DC = _text("dc", "DC as MOD or MOD:label (target 10+MOD), e.g. 3:WIS", length=MAX_LABEL)
ADVANTAGE = _sources("adv", "Advantage")
DISADVANTAGE = _sources("dis", "Disadvantage")
MEDIAN = _flag("median", "Median check: the middle die counts")
EASED = _sources("eased", "Eased")
HINDERED = _sources("hindered", "Hindered")
REROLL = _number("reroll", "Rerolls you may spend on this roll", 0, MAX_REROLLS)
SCOPE = _choice("scope", "What the rerolls may touch", "effect", "damage")
LABEL = _text("label", "A note shown with the roll", length=MAX_LABEL)
FOR = _text("for", "GM: roll for a member or an NPC")
# Discord caps the whole command's text: the modes are told in docs/discord.md.
MODE = _choice("mode", "Who sees it", "public", "gm", "blind", "self")
ROLL_ID = _number("roll", "The roll's number (#)", 1, 2**53, required=True)
CHECK_OPTIONS = (ADVANTAGE, DISADVANTAGE, MEDIAN, EASED, HINDERED, REROLL, SCOPE, LABEL, FOR)

SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand("start", "Start a session in this channel; you are its GM", (
        _text("title", "The session's title", True),
        _text("name", "Your name as GM (default: your Discord name)"),
    )),
    Subcommand("invite", "GM: a single-use invite code, shown only to you", (
        _number("minutes", "How long it stays valid (default a day)", 1, 7 * 24 * 60),
    )),
    Subcommand("join", "Join this channel's session with an invite code", (
        _text("code", "The invite code from the GM", True, 100),
        _text("name", "Your name here (default: your Discord name)"),
        _text("client_seed", "Your own entropy, mixed into your dice"),
    )),
    Subcommand("check", "Make a check against a target or a DC", (
        EXPRESSION, TARGET, DC, *CHECK_OPTIONS, MODE,
    )),
    Subcommand("save", "Make a save against an effect", (
        EXPRESSION, _text("against", "What the save avoids", True, MAX_AGAINST), TARGET, DC,
        *CHECK_OPTIONS, MODE,
    )),
    Subcommand("roll", "Roll dice: damage or effect", (
        EXPRESSION, _choice("kind", "What the roll is for", "effect", "damage"),
        EASED, HINDERED, REROLL, SCOPE, LABEL, FOR, MODE,
    )),
    Subcommand("opposed", "Roll an opposed check; ties roll again", (
        EXPRESSION,
        _text("vs", "The other side: a member or an NPC", True),
        _text("vs_expression", "The other side's dice, e.g. 1d20+2", True, MAX_EXPRESSION),
        ADVANTAGE, DISADVANTAGE, MEDIAN, EASED, HINDERED,
        _sources("vs_adv", "Their advantage"), _sources("vs_dis", "Their disadvantage"),
        _sources("vs_eased", "Their eased"), _sources("vs_hindered", "Their hindered"),
        REROLL, SCOPE, _number("vs_reroll", "Their rerolls", 0, MAX_REROLLS),
        _flag("vs_rolls_own", "They roll their own dice"),
        _flag("blind", "Same as mode blind"), LABEL, FOR, MODE,
    )),
    Subcommand("blind", "Roll seen by the GMs only", (
        EXPRESSION,
        _choice("kind", "What it is for (default effect)", "effect", "damage", "check", "save"),
        TARGET, DC, _text("against", "What a save avoids", length=MAX_AGAINST), *CHECK_OPTIONS,
    )),
    Subcommand("reveal", "Show a hidden roll", (ROLL_ID,)),
    Subcommand("dispute", "Dispute a roll", (ROLL_ID, _text("reason", "Why", True))),
    Subcommand("end", "GM: end the session and reveal its seed"),
    Subcommand("verify", "A link to verify this session, and its checkpoint now"),
    Subcommand("odds", "Exact odds of a roll or check", (
        EXPRESSION, TARGET, _number("dc", "DC MOD (target 10+MOD)", -MAX_AMOUNT, MAX_AMOUNT),
        ADVANTAGE, DISADVANTAGE, MEDIAN, EASED, HINDERED, REROLL,
    )),
    Subcommand("history", "The last rolls of this channel's session", (
        _number("n", "How many (default 5)", 1, 20),
    )),
    Subcommand("stats", "Statistics of the session, shown only to you", (
        _text("player", "Only this player"),
    )),
)  # fmt: skip


def subcommand(name: str) -> Subcommand | None:
    """Return the subcommand called ``name``, or None."""
    return next((s for s in SUBCOMMANDS if s.name == name), None)


def definitions() -> list[JsonObject]:
    """Return the commands to register: `/dl` with every subcommand."""
    return [
        {
            "name": COMMAND,
            "type": CHAT_INPUT,
            "description": "Dice recorded in a verifiable log (diceledger)",
            "contexts": [IN_SERVERS],
            "options": [s.as_json() for s in SUBCOMMANDS],
        }
    ]

"""The `/dl` command fits Discord's rules for commands, and the server knows every option."""

from __future__ import annotations

import re

import pytest

from diceledger.domain.json import JsonObject, JsonValue
from diceledger.infra.app.discord_commands import SUBCOMMANDS, OptionType, definitions, subcommand
from diceledger.infra.app.roll_form import MAX_REROLLS
from diceledger.web.discord.actions import ACTIONS, PRIVATE_ANSWERS, SECRET_ANSWERS

NAME = re.compile(r"^[-_a-z0-9]{1,32}$")  # lowercase, as Discord requires of slash commands


def combined_length(option: JsonValue) -> int:
    """Count what Discord caps at 4,000: names, descriptions and choices, all the way down."""
    assert isinstance(option, dict)
    total = len(str(option["name"])) + len(str(option.get("description", "")))
    choices, options = option.get("choices", []), option.get("options", [])
    assert isinstance(choices, list) and isinstance(options, list)
    for choice in choices:
        assert isinstance(choice, dict)
        total += len(str(choice["name"])) + len(str(choice["value"]))
    return total + sum(combined_length(o) for o in options)


def every_option() -> list[JsonObject]:
    command = definitions()[0]
    found: list[JsonObject] = [command]
    for sub in command["options"]:  # type: ignore[union-attr]
        assert isinstance(sub, dict)
        found.append(sub)
        found += [o for o in sub.get("options", []) if isinstance(o, dict)]  # type: ignore[union-attr]
    return found


def test_the_command_fits_discords_limits() -> None:
    (command,) = definitions()
    assert combined_length(command) <= 4000
    assert len(SUBCOMMANDS) <= 25 and all(len(s.options) <= 25 for s in SUBCOMMANDS)
    for option in every_option():
        assert NAME.match(str(option["name"])), option["name"]
        assert 1 <= len(str(option["description"])) <= 100, option["name"]
        assert len(option.get("choices", [])) <= 25  # type: ignore[arg-type]


@pytest.mark.parametrize("sub", SUBCOMMANDS, ids=lambda s: s.name)
def test_required_options_come_first(sub: object) -> None:
    flags = [option.required for option in sub.options]  # type: ignore[attr-defined]
    assert flags == sorted(flags, reverse=True)


def test_every_subcommand_has_an_action_and_no_action_lacks_a_subcommand() -> None:
    names = {s.name for s in SUBCOMMANDS}
    assert names == set(ACTIONS)
    assert SECRET_ANSWERS <= PRIVATE_ANSWERS <= names


def test_an_opposed_check_names_its_reroll_options_as_a_check_does() -> None:
    check, opposed = subcommand("check"), subcommand("opposed")
    assert check is not None and opposed is not None
    for name in ("reroll", "scope"):  # the request's side: the same options as /dl check
        assert opposed.option(name) == check.option(name)
    vs_reroll, blind = opposed.option("vs_reroll"), opposed.option("blind")
    assert vs_reroll is not None and vs_reroll.type is OptionType.INTEGER
    assert (vs_reroll.min_value, vs_reroll.max_value) == (0, MAX_REROLLS)  # the form's limit
    assert blind is not None and blind.type is OptionType.BOOLEAN

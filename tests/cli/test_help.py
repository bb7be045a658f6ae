"""Every command explains itself: an example in its --help, help on every option, --json."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from diceledger.cli.lazy import LazyGroup
from diceledger.cli.main import cli
from diceledger.cli.registry import COMMANDS

# Commands whose output is a file, a tour or a schema action rather than a result document.
NO_JSON = {"demo", "serve"}


def leaf_commands() -> list[tuple[str, click.Command]]:
    ctx = click.Context(cli)
    found: list[tuple[str, click.Command]] = []
    for name in COMMANDS:
        command = LazyGroup.get_command(cli, ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            found += [(f"{name} {sub}", c) for sub, c in command.commands.items()]
        else:
            found.append((name, command))
    return found


@pytest.mark.parametrize(("name", "command"), leaf_commands(), ids=lambda v: str(v))
def test_every_command_has_an_example_and_help_on_every_option(
    name: str, command: click.Command
) -> None:
    result = CliRunner().invoke(cli, [*name.split(), "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output, name
    for parameter in command.params:
        if isinstance(parameter, click.Option) and not parameter.hidden:
            assert parameter.help, f"{name} {parameter.opts} has no help"
    if name.split()[0] not in NO_JSON:
        assert "--json" in result.output, f"{name} cannot print JSON"


def test_top_level_help_lists_every_command_without_importing_them() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


def test_version_is_printed() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("diceledger, version ")


def test_the_version_shown_is_the_installed_distributions() -> None:
    from importlib.metadata import version

    result = CliRunner().invoke(cli, ["--version"])
    assert result.output.strip() == f"diceledger, version {version('diceledger')}"


@pytest.mark.parametrize(("name", "command"), leaf_commands(), ids=lambda v: str(v))
def test_no_help_shows_an_unbounded_range_as_none(name: str, command: click.Command) -> None:
    result = CliRunner().invoke(cli, [*name.split(), "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "None" not in result.output, name

"""A click group that imports a subcommand's module only when it is invoked."""

from __future__ import annotations

import importlib

import click

from diceledger.cli.registry import COMMANDS


class LazyGroup(click.Group):
    """Resolve commands from the registry on demand; list them from it without imports."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            module_name, attribute, _ = COMMANDS[cmd_name]
            command = getattr(importlib.import_module(module_name), attribute)
            assert isinstance(command, click.Command)
            return command
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in sorted(COMMANDS)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

"""``diceledger discord register``: tell Discord about the `/dl` slash command."""

from __future__ import annotations

import os

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import emit_json
from diceledger.infra.app.discord_calls import DEFAULT_API_URL
from diceledger.infra.app.discord_commands import COMMAND, SUBCOMMANDS, definitions


def _snowflake(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not (value.isascii() and value.isdigit() and len(value) <= 20):
        raise click.BadParameter("a Discord id is a number of up to 20 digits")
    return value


@click.group("discord")
def discord() -> None:
    """Connect diceledger to a Discord application (docs/discord.md)."""


@discord.command("register")
@click.option(
    "--app-id",
    required=True,
    metavar="ID",
    callback=_snowflake,
    help="The application's id (developer portal, General Information).",
)
@click.option(
    "--token-env",
    default="DISCORD_BOT_TOKEN",
    show_default=True,
    metavar="VAR",
    help="The environment variable that holds the bot token (never typed on the line).",
)
@click.option(
    "--guild",
    metavar="ID",
    callback=_snowflake,
    help="Register in this server only: changes show at once (while trying things out).",
)
@click.option(
    "--api-url",
    default=DEFAULT_API_URL,
    show_default=True,
    envvar="DICELEDGER_DISCORD_API_URL",
    metavar="URL",
    help="Discord's API base URL (env DICELEDGER_DISCORD_API_URL).",
)
@click.option("--dry-run", is_flag=True, help="Print what would be sent; send nothing.")
@json_option
@pass_app
def register(
    app: AppContext,
    app_id: str,
    token_env: str,
    guild: str | None,
    api_url: str,
    dry_run: bool,
) -> None:
    """Register `/dl` and its subcommands, replacing the application's commands.

    Sends one PUT to Discord's API, /applications/ID/commands (or, with --guild,
    /applications/ID/guilds/GUILD/commands), authorised with the bot token read from the
    environment variable --token-env names. Nothing else in diceledger calls Discord
    except the server answering interactions.

    \b
    Example:
      DISCORD_BOT_TOKEN=... diceledger discord register --app-id 1234567890123456789
    """
    commands = definitions()
    if dry_run:
        emit_json(commands)
        return
    token = os.environ.get(token_env, "").strip()
    if not token:
        raise click.UsageError(f"set {token_env} to the application's bot token")
    from diceledger.infra.bootstrap import discord_api

    registered = discord_api(api_url).register_commands(app_id, token, commands, guild)
    if app.json:
        emit_json({"application_id": app_id, "guild_id": guild, "commands": registered})
        return
    where = f"in server {guild}" if guild else "globally"
    click.echo(
        f"registered /{COMMAND} with {len(SUBCOMMANDS)} subcommands {where} "
        f"for application {app_id}"
    )

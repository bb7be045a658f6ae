"""`diceledger discord register`: one PUT of the command definitions, with the bot token."""

from __future__ import annotations

import json

from click.testing import CliRunner, Result

from diceledger.cli.main import cli
from diceledger.infra.app.discord_commands import definitions
from tests.discord.fake_api import fake_discord_api

APP_ID = "123456789012345678"
TOKEN = "bot-token-that-must-never-be-printed"


def register(api_url: str, *args: str, token: str | None = TOKEN) -> Result:
    env = {"DICELEDGER_DISCORD_API_URL": api_url, "MY_BOT_TOKEN": token}
    arguments = ["discord", "register", "--app-id", APP_ID, "--token-env", "MY_BOT_TOKEN"]
    return CliRunner(env=env).invoke(cli, [*arguments, *args])


def test_register_puts_the_commands_with_the_bot_token() -> None:
    with fake_discord_api() as api:
        api.answer = [{"id": "1", "name": "dl"}]
        result = register(api.url)
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"registered /dl with 15 subcommands globally for application {APP_ID}\n"
    )
    (put,) = api.received
    assert (put.method, put.path) == ("PUT", f"/api/v10/applications/{APP_ID}/commands")
    assert put.headers["Authorization"] == f"Bot {TOKEN}"
    assert put.headers["Content-Type"] == "application/json"
    assert put.body == definitions()


def test_register_in_one_server_uses_the_guild_endpoint_and_prints_json() -> None:
    with fake_discord_api() as api:
        api.answer = [{"id": "1", "name": "dl"}]
        result = register(api.url, "--guild", "42", "--json")
    assert result.exit_code == 0, result.output
    (put,) = api.received
    assert put.path == f"/api/v10/applications/{APP_ID}/guilds/42/commands"
    answer = json.loads(result.output)
    assert answer == {"application_id": APP_ID, "guild_id": "42", "commands": api.answer}


def test_a_refusal_by_discord_is_one_line_without_the_token() -> None:
    with fake_discord_api() as api:
        api.status, api.answer = 401, {"message": "401: Unauthorized", "code": 0}
        result = register(api.url)
    assert result.exit_code == 1
    assert result.output == (
        "Error: Discord refused registering the commands: HTTP 401 401: Unauthorized\n"
    )
    assert TOKEN not in result.output


def test_without_a_token_nothing_is_sent() -> None:
    with fake_discord_api() as api:
        result = register(api.url, token=None)
    assert result.exit_code == 2 and "set MY_BOT_TOKEN to the application's bot token" in (
        result.output
    )
    assert api.received == []


def test_an_unreachable_api_is_one_line() -> None:
    with fake_discord_api() as api:
        url = api.url
    result = register(url)  # the fake has stopped: nothing listens there any more
    assert result.exit_code == 1
    assert result.output.startswith("Error: Discord could not be reached: ")


def test_a_dry_run_prints_the_definitions_and_sends_nothing() -> None:
    with fake_discord_api() as api:
        result = register(api.url, "--dry-run")
    assert result.exit_code == 0 and json.loads(result.output) == definitions()
    assert api.received == []

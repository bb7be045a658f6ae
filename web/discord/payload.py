"""An interaction as Discord posts it, read into types; anything else is refused.

Only the fields diceledger uses are read: the interaction's id and token, the channel, who
sent it (``member.user`` in a server, ``user`` elsewhere: the id Discord signs is the
identity), and either the `/dl` subcommand with its options or a button's ``custom_id``.
Options are checked against the registered definitions, by name and by type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum

from diceledger.domain.errors import InvalidInputError
from diceledger.domain.json import JsonValue
from diceledger.infra.app.discord import DiscordUser
from diceledger.infra.app.discord_calls import InteractionHandle
from diceledger.infra.app.discord_commands import COMMAND, OptionType, Subcommand, subcommand

OptionValue = str | int | bool
SNOWFLAKE_DIGITS = 20
BUTTON = 2  # message component type of a button


class InteractionType(IntEnum):
    """The interactions diceledger answers, with Discord's numbers."""

    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3


@dataclass(frozen=True, slots=True)
class Interaction:
    """One signed interaction: who, where, and what they asked."""

    interaction_id: str
    application_id: str
    type: InteractionType
    token: str
    channel_id: str
    user: DiscordUser
    subcommand: str = ""  # a slash command's subcommand
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    custom_id: str = ""  # a button's id
    fingerprint: str = ""  # what a redelivery must repeat: who, where, and the data

    @property
    def handle(self) -> InteractionHandle:
        """Return what answering this interaction later needs."""
        return InteractionHandle(self.application_id, self.token, self.interaction_id)

    def text(self, name: str) -> str | None:
        """Return a string option, or None when it was not given."""
        value = self.options.get(name)
        return value if isinstance(value, str) else None

    def number(self, name: str) -> int | None:
        """Return an integer option, or None when it was not given."""
        value = self.options.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def flag(self, name: str) -> bool:
        """Return a boolean option (false when not given)."""
        return self.options.get(name) is True


@dataclass(frozen=True, slots=True)
class Ping:
    """Discord checking the endpoint is alive (and checks its signatures)."""


def parse_interaction(body: bytes) -> Interaction | Ping:
    """Read a signed request body; refuse anything that is not an interaction we answer."""
    try:
        document = json.loads(body)
    except ValueError:
        raise InvalidInputError("the body is not JSON") from None
    if not isinstance(document, dict):
        raise InvalidInputError("an interaction is a JSON object")
    kind = document.get("type")
    if kind == InteractionType.PING:
        return Ping()
    if kind not in (InteractionType.APPLICATION_COMMAND, InteractionType.MESSAGE_COMPONENT):
        raise InvalidInputError(f"interactions of type {kind!r} are not answered here")
    data = _object(document.get("data"), "data")
    user = _user(document)
    channel_id = _channel(document)
    subcommand_name, custom_id = "", ""
    options: dict[str, OptionValue] = {}
    if kind == InteractionType.MESSAGE_COMPONENT:
        if data.get("component_type") != BUTTON:
            raise InvalidInputError("only buttons are answered here")
        custom_id = _string(data.get("custom_id"), "custom_id")
    else:
        subcommand_name, options = _command(data)
    return Interaction(
        interaction_id=_snowflake(document.get("id"), "id"),
        application_id=_snowflake(document.get("application_id"), "application_id"),
        type=InteractionType(kind),
        token=_string(document.get("token"), "token"),
        channel_id=channel_id,
        user=user,
        subcommand=subcommand_name,
        options=options,
        custom_id=custom_id,
        fingerprint=json.dumps([kind, user.user_id, channel_id, data], sort_keys=True),
    )


def _command(data: dict[str, JsonValue]) -> tuple[str, dict[str, OptionValue]]:
    if data.get("name") != COMMAND:
        raise InvalidInputError(f"unknown command {data.get('name')!r}")
    given = _list(data.get("options", []), "options")
    if len(given) != 1:
        raise InvalidInputError("name one subcommand")
    chosen = _object(given[0], "subcommand")
    definition = subcommand(_string(chosen.get("name"), "subcommand"))
    if definition is None or chosen.get("type") != OptionType.SUB_COMMAND:
        raise InvalidInputError(f"unknown subcommand {chosen.get('name')!r}")
    options: dict[str, OptionValue] = {}
    for raw in _list(chosen.get("options", []), "options"):
        option = _object(raw, "option")
        name = _string(option.get("name"), "option name")
        options[name] = _option_value(definition, name, option.get("value"))
    return definition.name, options


def _option_value(definition: Subcommand, name: str, value: JsonValue) -> OptionValue:
    option = definition.option(name)
    if option is None:
        raise InvalidInputError(f"/{COMMAND} {definition.name} has no option {name!r}")
    if option.type is OptionType.STRING and isinstance(value, str):
        return value
    if option.type is OptionType.BOOLEAN and isinstance(value, bool):
        return value
    if option.type is OptionType.INTEGER and isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InvalidInputError(f"option {name!r} has a value of the wrong type")


def _user(document: dict[str, JsonValue]) -> DiscordUser:
    member = document.get("member")
    nick = None
    if isinstance(member, dict):
        raw = member.get("user")
        nick = member.get("nick")
    else:
        raw = document.get("user")
    user = _object(raw, "user")
    user_id = _snowflake(user.get("id"), "user id")
    for name in (nick, user.get("global_name"), user.get("username")):
        if isinstance(name, str) and name.strip():
            return DiscordUser(user_id, name)
    return DiscordUser(user_id, f"user {user_id}")


def _channel(document: dict[str, JsonValue]) -> str:
    channel = document.get("channel")
    if isinstance(channel, dict) and "id" in channel:
        return _snowflake(channel.get("id"), "channel id")
    return _snowflake(document.get("channel_id"), "channel_id")


def _snowflake(value: JsonValue, what: str) -> str:
    if isinstance(value, str) and value.isascii() and value.isdigit():
        if len(value) <= SNOWFLAKE_DIGITS:
            return value
    raise InvalidInputError(f"{what} is not a Discord id")


def _string(value: JsonValue, what: str) -> str:
    if isinstance(value, str) and value:
        return value
    raise InvalidInputError(f"{what} is missing")


def _object(value: JsonValue, what: str) -> dict[str, JsonValue]:
    if isinstance(value, dict):
        return value
    raise InvalidInputError(f"{what} is not an object")


def _list(value: JsonValue, what: str) -> list[JsonValue]:
    if isinstance(value, list):
        return value
    raise InvalidInputError(f"{what} is not a list")

"""Whatever a signed body holds, it is read into types or refused in one line, never a crash."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diceledger.domain.errors import DiceledgerError, InvalidInputError
from diceledger.web.discord import options
from diceledger.web.discord.buttons import parse_custom_id
from diceledger.web.discord.payload import Interaction, Ping, parse_interaction
from tests.discord.conftest import ANN, CHANNEL, FakeDiscord

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = [
    "id",
    "application_id",
    "type",
    "token",
    "channel_id",
    "channel",
    "member",
    "user",
    "data",
]


def a_command() -> dict[str, Any]:
    fake = FakeDiscord(lambda body, headers: (200, None), key=None)  # type: ignore[arg-type]
    return fake.command(ANN, "check", CHANNEL, expression="1d20", target=10, adv="1:flank")


def test_a_command_is_read_into_its_subcommand_options_and_signed_user() -> None:
    read = parse_interaction(json.dumps(a_command()).encode())
    assert isinstance(read, Interaction)
    assert (read.subcommand, read.user.user_id, read.channel_id) == ("check", ANN.user_id, CHANNEL)
    assert dict(read.options) == {"expression": "1d20", "target": 10, "adv": "1:flank"}


def test_a_ping_is_read_as_a_ping() -> None:
    assert isinstance(parse_interaction(b'{"type": 1, "id": "1"}'), Ping)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("data", "options", 0, "options", 1, "value"), "ten"),  # target is an integer
        (("data", "options", 0, "options", 0, "name"), "actor"),  # no such option
        (("data", "options", 0, "name"), "delete"),  # no such subcommand
        (("member", "user", "id"), "mira"),  # a user id is a snowflake
    ],
)
def test_options_are_checked_against_the_definitions(path: tuple[Any, ...], value: Any) -> None:
    document = a_command()
    target = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    with pytest.raises(InvalidInputError):
        parse_interaction(json.dumps(document).encode())


@given(field=st.sampled_from(FIELDS), value=json_values)
def test_any_field_of_any_shape_is_read_or_refused(field: str, value: Any) -> None:
    document = a_command()
    document[field] = value
    try:
        parse_interaction(json.dumps(document).encode())
    except InvalidInputError:
        pass


@given(body=st.binary(max_size=200))
def test_any_bytes_are_read_or_refused(body: bytes) -> None:
    try:
        parse_interaction(body)
    except InvalidInputError:
        pass


@given(text=st.text(max_size=120))
def test_any_custom_id_or_source_list_is_read_or_refused(text: str) -> None:
    for read in (parse_custom_id, options.sources):
        try:
            read(text)
        except DiceledgerError:
            pass

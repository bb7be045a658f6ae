"""Interactions that draw dice are limited per Discord user, as HTTP rolls are per token."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.discord.conftest import ANN, BOB, DiscordTable, build_table, seat_players
from tests.infra.support import database_url

EPHEMERAL = 64
LIMIT = 2


@pytest.fixture
def tight_table(
    request: pytest.FixtureRequest, signing_key: Ed25519PrivateKey
) -> Iterator[DiscordTable]:
    url = database_url("sqlite", request)
    assert url is not None
    table = build_table(url, signing_key, rolls_per_minute=LIMIT)
    try:
        with table.client:
            yield table
    finally:
        table.services.app.close()
        table.engine.dispose()


def text(answer: dict[str, Any]) -> str:
    return str(answer["data"]["content"])


def test_a_user_past_the_limit_is_refused_privately_and_rolls_nothing(
    tight_table: DiscordTable,
) -> None:
    session_id = seat_players(tight_table)
    for _ in range(LIMIT):
        assert text(tight_table.discord.run(ANN, "roll", expression="1d6")).startswith("**#")
    before = tight_table.events()
    answer = tight_table.discord.run(ANN, "check", expression="1d20", target=10)
    assert answer["data"]["flags"] == EPHEMERAL
    assert text(answer).startswith(f"Nothing was done: at most {LIMIT} rolls a minute")
    assert tight_table.events() == before
    # Another player's dice are counted apart, and reading the table draws none.
    assert text(tight_table.discord.run(BOB, "roll", expression="1d6")).startswith("**#")
    history = text(tight_table.discord.run(ANN, "history"))
    assert f"of session `{session_id}`" in history


def test_a_redelivered_roll_is_answered_again_without_counting(
    tight_table: DiscordTable,
) -> None:
    seat_players(tight_table)
    first = tight_table.discord.command(ANN, "roll", expression="1d6")
    for _ in range(LIMIT + 1):  # Discord may deliver one interaction more than once
        status, answer = tight_table.discord.deliver(first)
        assert status == 200 and text(answer).startswith("**#1**"), answer
    assert text(tight_table.discord.run(ANN, "roll", expression="1d8")).startswith("**#2**")

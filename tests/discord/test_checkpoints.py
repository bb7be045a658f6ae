"""A Discord table compares what it saw: every result ends with its checkpoint as
``#size · words``, and ``/dl verify`` gives a member the verify page and the checkpoint now."""

from __future__ import annotations

from typing import Any

from diceledger.domain.fingerprint import note_label
from tests.discord.conftest import ANN, BOB, EVE, MIRA, DiscordTable

EPHEMERAL = 64


def last_line(answer: dict[str, Any]) -> str:
    return str(answer["data"]["content"]).split("\n")[-1]


def latest_label(table: DiscordTable, session_id: str) -> str:
    return note_label(table.services.app.proofs.checkpoint(session_id).note)


def test_every_result_ends_with_the_checkpoint_it_produced(
    discord_table: DiscordTable, seated: str
) -> None:
    rolled = discord_table.discord.run(ANN, "check", expression="1d20+5", target=15)
    assert last_line(rolled) == f"checkpoint {latest_label(discord_table, seated)}"
    disputed = discord_table.discord.run(BOB, "dispute", roll=1, reason="the die fell off")
    assert last_line(disputed) == f"checkpoint {latest_label(discord_table, seated)}"
    assert last_line(rolled) != last_line(disputed)  # each its own: the log grew between
    ended = discord_table.discord.run(MIRA, "end")
    assert last_line(ended) == f"checkpoint {latest_label(discord_table, seated)}"
    size = discord_table.services.app.proofs.checkpoint(seated).signed.checkpoint.size
    assert last_line(ended).startswith(f"checkpoint #{size} \u00b7 ")
    assert len(last_line(ended).split(" \u00b7 ")[1].split()) == 5


def test_dl_verify_gives_a_player_the_verify_page_and_the_checkpoint_now(
    discord_table: DiscordTable, seated: str
) -> None:
    discord_table.discord.run(ANN, "roll", expression="2d6")
    answer = discord_table.discord.run(BOB, "verify")
    assert answer["type"] == 4 and answer["data"]["flags"] == EPHEMERAL
    text = str(answer["data"]["content"])
    assert f"<https://dice.example/s/{seated}/verify>" in text
    assert f"checkpoint {latest_label(discord_table, seated)}" in text


def test_dl_verify_is_for_members_of_the_channels_session_only(
    discord_table: DiscordTable, seated: str
) -> None:
    answer = discord_table.discord.run(EVE, "verify")
    assert answer["data"]["flags"] == EPHEMERAL
    assert str(answer["data"]["content"]).startswith("Nothing was done: ")
    assert "checkpoint #" not in str(answer["data"]["content"])

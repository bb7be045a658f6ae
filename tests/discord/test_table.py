"""A table played from Discord: slash commands and buttons into the same verifiable log."""

from __future__ import annotations

import json
import re
from typing import Any

from click.testing import CliRunner, Result
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from diceledger.cli.context import AppContext
from diceledger.cli.main import cli
from diceledger.infra.bootstrap import bootstrap
from tests.discord.conftest import (
    ANN,
    APP_ID,
    BOB,
    EVE,
    MIRA,
    OTHER_CHANNEL,
    DiscordTable,
    User,
    build_table,
    invite_code,
)

EPHEMERAL = 64
DIE = r"(?:~~\d+~~|\*\*[\d!]+\*\*)"


def content(answer: dict[str, Any]) -> str:
    return str(answer["data"]["content"])


def refused(table: DiscordTable, answer: dict[str, Any]) -> str:
    """Assert an answer is a private refusal; return its text."""
    assert answer["type"] == 4 and answer["data"]["flags"] == EPHEMERAL, answer
    assert content(answer).startswith("Nothing was done: ")
    return content(answer)


def buttons(answer: dict[str, Any]) -> dict[str, str]:
    """Return the message's buttons by label."""
    return {
        button["label"]: button["custom_id"]
        for row in answer["data"]["components"]
        for button in row["components"]
    }


def event_types(table: DiscordTable, session_id: str) -> list[str]:
    return [record.event_type for record in table.store.read_stream(session_id)]


def test_a_gm_starts_a_session_in_a_channel_and_players_join_by_invite(
    discord_table: DiscordTable,
) -> None:
    started = discord_table.discord.run(MIRA, "start", title="Tomb of Ash")
    assert started["type"] == 4 and "flags" not in started["data"]
    assert "with **mira** as GM" in content(started)
    session_id = discord_table.session_of(started)
    invite = discord_table.discord.run(MIRA, "invite")
    assert invite["data"]["flags"] == EPHEMERAL  # only the GM sees the code
    code = invite_code(discord_table)
    joined = discord_table.discord.run(ANN, "join", code=code, name="Ann the Bold")
    assert "**Ann the Bold** joins session" in content(joined) and code not in content(joined)
    members = discord_table.services.app.members(session_id)
    assert members == {"mira": "gm", "Ann the Bold": "player"}


def test_an_invite_code_works_once(discord_table: DiscordTable, seated: str) -> None:
    code = invite_code(discord_table)
    discord_table.discord.run(EVE, "join", code=code)
    before = discord_table.events()
    again = discord_table.discord.run(User("100000000000000009", "zed"), "join", code=code)
    assert "unknown, used or expired" in refused(discord_table, again)
    assert discord_table.events() == before


def test_a_discord_user_joins_a_session_once(discord_table: DiscordTable, seated: str) -> None:
    before = discord_table.events()
    again = discord_table.discord.run(ANN, "join", code=invite_code(discord_table), name="Ann 2")
    assert "you already play ann" in refused(discord_table, again)
    assert discord_table.events() == before


def test_a_check_with_advantage_shows_every_die_counted_or_struck(
    discord_table: DiscordTable, seated: str
) -> None:
    answer = discord_table.discord.run(ANN, "check", expression="1d20+5", target=15, adv="1:flank")
    text = content(answer)
    assert answer["data"]["allowed_mentions"] == {"parse": []}
    assert text.startswith("**#1** · ann · check · vs 15\nadvantage 1 flank\n")
    assert re.search(rf"\n1d20 \({DIE}, {DIE}\) \+ 5 = \d+\n", text), text
    assert text.count("~~") == 2  # the die that does not count, struck
    assert re.search(r"\*\*(success|failure)\*\*, margin [+-]\d+", text)
    assert "(<https://dice.example/s/" in text and "/rolls/1/receipt>)" in text
    assert event_types(discord_table, seated)[-1] == "CheckResolved"


def test_a_reroll_by_button_replaces_the_die_and_updates_the_message(
    discord_table: DiscordTable, seated: str
) -> None:
    rolled = discord_table.discord.run(BOB, "roll", expression="2d6+3", reroll=1, kind="damage")
    assert "awaiting rerolls: 1 left (effect)" in content(rolled)
    choices = buttons(rolled)
    assert set(choices) >= {"Accept"} and len(choices) == 3
    die = next(label for label in choices if label.startswith("Reroll d6 #0"))
    status, clicked = discord_table.discord.deliver(discord_table.discord.click(BOB, choices[die]))
    assert status == 200 and clicked["type"] == 7  # the roll's own message, updated
    text = content(clicked)
    old_face = re.search(r"\((\d)\)", die)
    assert old_face is not None and f"(~~{old_face.group(1)}~~ " in text
    assert "total **" in text and clicked["data"]["components"] == []
    assert "DieRerolled" in event_types(discord_table, seated)


def test_only_the_roller_may_use_the_buttons_of_a_roll(
    discord_table: DiscordTable, seated: str
) -> None:
    rolled = discord_table.discord.run(BOB, "roll", expression="1d6", reroll=1)
    before = discord_table.events()
    for custom_id in buttons(rolled).values():
        _, answer = discord_table.discord.deliver(discord_table.discord.click(ANN, custom_id))
        assert "only bob, who rolled it" in refused(discord_table, answer)
    assert discord_table.events() == before


def test_accept_by_button_resolves_the_roll_as_it_stands(
    discord_table: DiscordTable, seated: str
) -> None:
    rolled = discord_table.discord.run(BOB, "roll", expression="1d6", reroll=2)
    click = discord_table.discord.click(BOB, buttons(rolled)["Accept"])
    _, accepted = discord_table.discord.deliver(click)
    assert accepted["type"] == 7 and "total **" in content(accepted)
    assert "RollAccepted" in event_types(discord_table, seated)


def test_a_blind_roll_shows_its_dice_only_to_the_gm(
    discord_table: DiscordTable, seated: str
) -> None:
    answer = discord_table.discord.run(
        MIRA, "blind", expression="1d20+2", kind="check", target=12, label="ambush"
    )
    assert answer["data"]["flags"] == EPHEMERAL
    assert re.search(r"\n1d20 \(\d+(!\d+)*\) \+ 2 = \d+\n", content(answer))
    token = discord_table.discord.sent[-1]["token"]
    (method, url, notice), *_ = discord_table.webhooks.calls
    assert method == "POST" and url == f"https://discord.test/api/v10/webhooks/{APP_ID}/{token}"
    assert notice is not None
    assert notice["content"].split("\n")[0] == "**#1** · the GM rolled blind"
    assert notice["content"].split("\n")[1].startswith("checkpoint #")  # the only other line
    assert "flags" not in notice  # the channel sees it, and nothing else: no dice, no label
    history = content(discord_table.discord.run(ANN, "history"))
    assert "**#1** · the GM rolled blind" in history and "1d20" not in history
    assert "ambush" not in history


def test_the_channel_never_sees_a_hidden_rolls_dice_even_when_the_gm_asks(
    discord_table: DiscordTable, seated: str
) -> None:
    discord_table.discord.run(
        MIRA, "blind", expression="1d20+2", kind="check", target=12, label="ambush"
    )
    for user in (MIRA, ANN):
        history = discord_table.discord.run(user, "history")
        assert "flags" not in history["data"]  # the answer is posted in the channel
        text = content(history)
        assert "**#1** · the GM rolled blind" in text
        assert "ambush" not in text and "1d20" not in text


def test_a_players_dice_mix_their_own_client_seed_and_no_salt_the_face_chose(
    discord_table: DiscordTable,
) -> None:
    started = discord_table.discord.run(MIRA, "start", title="Tomb of Ash")
    session_id = discord_table.session_of(started)
    code = invite_code(discord_table)
    discord_table.discord.run(ANN, "join", code=code, client_seed="ann's lucky words")
    discord_table.discord.run(ANN, "roll", expression="1d20")
    records = discord_table.store.read_stream(session_id)
    requested = next(r for r in records if r.event_type == "RollRequested")
    assert requested.data["client_seed"] == "ann's lucky words"
    assert requested.data["salt"] == ""


def test_a_player_rolls_blind_and_learns_only_that_they_did(
    discord_table: DiscordTable, seated: str
) -> None:
    answer = discord_table.discord.run(ANN, "blind", expression="1d20")
    said = content(answer).split("\n")[0]
    assert said == "**#1** · ann rolled blind"  # no die, no total: not even hers
    (notice,) = discord_table.webhooks.messages()
    assert notice["content"].split("\n")[0] == "**#1** · ann rolled blind"
    history = content(discord_table.discord.run(MIRA, "history"))  # what the channel sees
    assert "**#1** · ann rolled blind" in history and "1d20" not in history


def test_a_private_check_shows_its_dice_to_the_roller_and_a_notice_to_the_channel(
    discord_table: DiscordTable, seated: str
) -> None:
    answer = discord_table.discord.run(ANN, "check", expression="1d20", target=10, mode="gm")
    assert answer["data"]["flags"] == EPHEMERAL and "d20" in content(answer)
    (notice,) = discord_table.webhooks.messages()
    assert notice["content"].split("\n")[0] == "**#1** · ann rolled privately"
    history = content(discord_table.discord.run(BOB, "history"))
    assert "ann rolled privately" in history and "d20" not in history
    refused_mode = discord_table.discord.run(ANN, "roll", expression="1d6", mode="secret")
    assert "a mode is public, gm, blind or self" in refused(discord_table, refused_mode)


def test_a_revealed_blind_roll_is_shown_to_the_channel(
    discord_table: DiscordTable, seated: str
) -> None:
    discord_table.discord.run(MIRA, "blind", expression="2d6")
    refused(discord_table, discord_table.discord.run(ANN, "reveal", roll=1))
    revealed = discord_table.discord.run(MIRA, "reveal", roll=1)
    assert "flags" not in revealed["data"]
    assert "· blind, revealed" in content(revealed) and "2d6 (" in content(revealed)


def test_a_dispute_is_recorded_and_announced(discord_table: DiscordTable, seated: str) -> None:
    discord_table.discord.run(BOB, "roll", expression="1d8")
    answer = discord_table.discord.run(ANN, "dispute", roll=1, reason="the die fell off the table")
    assert "**ann** disputes roll **#1**: the die fell off the table" in content(answer)
    assert "RollDisputed" in event_types(discord_table, seated)
    history = content(discord_table.discord.run(ANN, "history"))
    assert "**#1** bob effect: 1d8" in history


def test_history_lists_the_last_n_rolls(discord_table: DiscordTable, seated: str) -> None:
    for expression in ("1d4", "1d6", "1d8"):
        discord_table.discord.run(ANN, "roll", expression=expression)
    text = content(discord_table.discord.run(BOB, "history", n=2))
    assert text.startswith(f"The last 2 roll(s) of session `{seated}`:")
    assert "#2** ann effect: 1d6" in text and "#3** ann effect: 1d8" in text
    assert "#1**" not in text and "effect: 1d4" not in text  # the session id is random


def test_stats_are_shown_privately_per_player(discord_table: DiscordTable, seated: str) -> None:
    discord_table.discord.run(ANN, "check", expression="1d20", target=10)
    discord_table.discord.run(ANN, "roll", expression="1d6")
    answer = discord_table.discord.run(BOB, "stats", player="ann")
    assert answer["data"]["flags"] == EPHEMERAL
    assert "**ann**: 2 rolls · checks won " in content(answer) and "/1" in content(answer)


def test_odds_need_no_session(discord_table: DiscordTable) -> None:
    answer = discord_table.discord.run(EVE, "odds", expression="1d20+3", dc=3, adv="1")
    assert content(answer).startswith("1d20+3, advantage 1 vs 13: **79.75%** (319/400)")


def test_a_user_not_linked_to_the_session_is_refused(
    discord_table: DiscordTable, seated: str
) -> None:
    before = discord_table.events()
    for sub, options in (
        ("check", {"expression": "1d20", "target": 10}),
        ("roll", {"expression": "1d6"}),
        ("history", {}),
        ("end", {}),
    ):
        answer = discord_table.discord.run(EVE, sub, **options)
        assert "not a member of session" in refused(discord_table, answer)
    assert discord_table.events() == before


def test_a_member_of_another_channels_session_is_refused_here(
    discord_table: DiscordTable, seated: str
) -> None:
    rolled = discord_table.discord.run(ANN, "roll", expression="1d6", reroll=1)
    elsewhere = discord_table.discord.run(EVE, "start", OTHER_CHANNEL, title="Other table")
    assert "as GM" in content(elsewhere)
    before = discord_table.events()
    answer = discord_table.discord.run(ANN, "check", OTHER_CHANNEL, expression="1d20", target=5)
    assert "not a member of session" in refused(discord_table, answer)
    # A button of this channel's roll, clicked from the other channel, is refused too.
    click = discord_table.discord.click(ANN, buttons(rolled)["Accept"], OTHER_CHANNEL)
    _, clicked = discord_table.discord.deliver(click)
    assert "does not play session" in refused(discord_table, clicked)
    assert discord_table.events() == before


def test_a_channel_without_a_session_says_so(discord_table: DiscordTable) -> None:
    answer = discord_table.discord.run(ANN, "roll", OTHER_CHANNEL, expression="1d6")
    assert "this channel plays no session yet" in refused(discord_table, answer)


def test_a_channel_plays_one_session_until_it_ends(
    discord_table: DiscordTable, seated: str
) -> None:
    before = discord_table.events()
    again = discord_table.discord.run(BOB, "start", title="Another")
    assert "already plays session" in refused(discord_table, again)
    assert discord_table.events() == before
    refused(discord_table, discord_table.discord.run(ANN, "end"))  # a player may not end it
    ended = discord_table.discord.run(MIRA, "end")
    assert "has ended" in content(ended) and re.search(r"`[0-9a-f]{64}`", content(ended))
    next_one = discord_table.discord.run(BOB, "start", title="Another")
    assert discord_table.session_of(next_one) != seated


def test_a_redelivered_interaction_rolls_once(discord_table: DiscordTable, seated: str) -> None:
    interaction = discord_table.discord.command(ANN, "check", expression="1d20+1", target=11)
    first = discord_table.discord.deliver(interaction)
    after_first = discord_table.events()
    second = discord_table.discord.deliver(interaction)
    assert first == second
    assert discord_table.events() == after_first


def test_a_redelivered_blind_roll_posts_its_notice_once(
    discord_table: DiscordTable, seated: str
) -> None:
    interaction = discord_table.discord.command(MIRA, "blind", expression="1d20")
    first, second = (discord_table.discord.deliver(interaction) for _ in range(2))
    assert first == second and len(discord_table.webhooks.calls) == 1


def test_names_and_reasons_cannot_ping_or_format(discord_table: DiscordTable, seated: str) -> None:
    code = invite_code(discord_table)
    joined = discord_table.discord.run(EVE, "join", code=code, name="@everyone **loud** <@1>")
    text = content(joined)
    assert "@everyone" not in text and not re.search(r"(?<!\\)<@", text)
    assert "@\u200beveryone \\*\\*loud\\*\\* \\<@\u200b1\\>" in text
    discord_table.discord.run(ANN, "roll", expression="1d6")
    disputed = discord_table.discord.run(ANN, "dispute", roll=1, reason="`code` _it_ [x](y)")
    assert "\\`code\\` \\_it\\_ \\[x\\](y)" in content(disputed)


def test_a_session_played_on_discord_verifies_with_the_cli(
    discord_table: DiscordTable, seated: str
) -> None:
    run = discord_table.discord.run
    run(ANN, "check", expression="1d20+5", target=15, adv="1:flank,1:bless", dis="1:dark")
    rolled = run(BOB, "roll", expression="2d6+1d4", reroll=1, eased="2:bless")
    discord_table.discord.deliver(discord_table.discord.click(BOB, buttons(rolled)["Accept"]))
    run(ANN, "save", expression="1d20+1", against="banshee wail", dc="3:WIS", median=True)
    run(BOB, "opposed", expression="1d20+2", vs="ann", vs_expression="1d20")
    run(MIRA, "blind", expression="1d20", kind="check", target=12)
    run(MIRA, "reveal", roll=5)
    run(ANN, "dispute", roll=2, reason="too lucky")
    run(MIRA, "end")
    result = verify_with_cli(discord_table.url, seated)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["rolls"] == 5 and report["dice_verified"] >= 9
    actors = {record.meta["actor"] for record in discord_table.store.read_stream(seated)}
    assert actors == {"mira", "ann", "bob"}  # every roll was made as the member, by user id


def verify_with_cli(url: str, session_id: str) -> Result:
    """Run `diceledger --json verify SESSION` on the store at ``url``."""
    app = bootstrap(url)
    try:
        context = AppContext(url, "anyone", False, app)
        return CliRunner().invoke(cli, ["--json", "verify", session_id], obj=context)
    finally:
        app.close()  # the CLI would leave it to the process's exit


def test_a_slow_answer_is_deferred_then_delivered_by_editing_it(
    discord_table: DiscordTable, seated: str, signing_key: Ed25519PrivateKey
) -> None:
    # The same database behind a server that defers every answer, as if each were slow.
    table = build_table(discord_table.url, signing_key, defer_after=0)
    try:
        with table.client:
            send, calls = table.discord.deliver, table.webhooks.calls
            status, waiting = send(table.discord.command(ANN, "check", expression="1d20", target=9))
            assert (status, waiting) == (200, {"type": 5})
            method, url, message = calls[-1]
            assert method == "PATCH" and url.endswith("/messages/@original")
            assert message is not None and message["content"].startswith("**#1** · ann · check")
            assert "flags" not in message
            _, private = send(table.discord.command(ANN, "stats"))
            assert private == {"type": 5, "data": {"flags": EPHEMERAL}}
            _, refusal = send(table.discord.command(ANN, "end"))
            assert refusal == {"type": 5}  # shown to all while waiting; the refusal is not
            assert [call[0] for call in calls[-2:]] == ["DELETE", "POST"]
            assert calls[-1][2] is not None and calls[-1][2]["flags"] == EPHEMERAL
            send(table.discord.command(BOB, "roll", expression="1d6", reroll=1))
            rolled = calls[-1][2]
            assert rolled is not None
            accept = rolled["components"][0]["components"][0]
            _, clicked = send(table.discord.click(BOB, accept["custom_id"]))
            assert clicked == {"type": 6}
            method, _, updated = calls[-1]
            assert method == "PATCH" and updated is not None and "total **" in updated["content"]
    finally:
        table.services.app.close()
        table.engine.dispose()

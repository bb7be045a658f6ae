"""Rerolls of an opposed check on Discord: each side in its turn, by its own member's clicks.

docs/rules.md, "Rerolls in an opposed check": the request's side decides first, then the
other side; only a side's roller (any GM for an NPC) may reroll or accept for it; what a
side leaves unspent carries into a tied round; a player named as the other side of a GM's
blind roll may not be given rerolls.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import CheckSide
from diceledger.infra.app.results import ShownRoll
from diceledger.infra.bootstrap import in_memory
from diceledger.web.discord.buttons import parse_custom_id
from diceledger.web.discord.rolls import Links, roll_message
from tests.discord.conftest import (
    ANN,
    BOB,
    EVE,
    MIRA,
    DiscordTable,
    User,
    build_table,
    seat_players,
)
from tests.discord.test_table import (
    EPHEMERAL,
    buttons,
    content,
    event_types,
    refused,
    verify_with_cli,
)

LINKS = Links("https://dice.example")
SEED = bytes(range(32))
DIE = r"~~[\d!]+~~ [\d!]+"  # a die rerolled once: its old face struck, then the new one


@pytest.fixture
def seated(discord_table: DiscordTable) -> str:
    """CHANNEL's session, its dice the same every run: who wins is known, never a tie.

    A player's dice mix in the interaction id, so the ids start afresh too.
    """
    discord_table.services.app.reseed(lambda: SEED, lambda: "5eed00")
    discord_table.discord.ids = itertools.count(900000000000000001)
    return seat_players(discord_table)


def click(table: DiscordTable, user: User, custom_id: str) -> dict[str, Any]:
    """Click a button as ``user``; return the answer."""
    status, answer = table.discord.deliver(table.discord.click(user, custom_id))
    assert status == 200, answer
    return dict(answer)


def reroll_button(answer: dict[str, Any], owner: str) -> str:
    """Return the custom id of the first reroll button of ``owner``'s dice."""
    choices = buttons(answer)
    label = next(label for label in choices if label.startswith(f"Reroll {owner}'s d20 #"))
    return choices[label]


def test_both_sides_reroll_in_turn_by_their_own_members_clicks(
    discord_table: DiscordTable, seated: str
) -> None:
    rolled = discord_table.discord.run(
        ANN, "opposed", expression="1d20+2", vs="bob", vs_expression="1d20", reroll=1,
        vs_reroll=1,
    )  # fmt: skip
    text = content(rolled)
    assert text.startswith("**#1** · ann · opposed vs bob\nann's rerolls 1 (effect) · bob's")
    assert "awaiting **ann**'s rerolls: 1 left (effect)" in text and " · tie" not in text
    assert set(buttons(rolled)) >= {"Accept (ann)"} and len(buttons(rolled)) == 2
    assert all(f":{seated}:1:" in i and i.endswith(":0:1") for i in buttons(rolled).values())

    first = click(discord_table, ANN, reroll_button(rolled, "ann"))
    assert first["type"] == 7  # the check's own message, updated: now bob's turn
    assert "awaiting **bob**'s rerolls: 1 left (effect)" in content(first)
    assert re.search(rf"round 1: ann 1d20 \({DIE}\) \+ 2 = \d+ · bob", content(first))
    assert set(buttons(first)) >= {"Accept (bob)"} and reroll_button(first, "bob")

    second = click(discord_table, BOB, reroll_button(first, "bob"))
    assert second["type"] == 7 and second["data"]["components"] == []
    assert "\n**ann wins**" in content(second)  # both spent: compared (21 against 2)
    assert re.search(rf"· bob 1d20 \({DIE}\) = \d+", content(second))
    rerolls = [
        record.data["side"]
        for record in discord_table.store.read_stream(seated)
        if record.event_type == "DieRerolled"
    ]
    assert rerolls == [0, 1]  # the request's side first (R14)
    history = content(discord_table.discord.run(ANN, "history"))
    assert "**#1** ann opposed: ann 21 vs bob 2: ann wins" in history
    discord_table.discord.run(MIRA, "end")
    result = verify_with_cli(discord_table.url, seated)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rolls"] == 1


def test_a_click_for_the_other_side_is_refused_privately_and_appends_nothing(
    discord_table: DiscordTable, seated: str
) -> None:
    rolled = discord_table.discord.run(
        ANN, "opposed", expression="1d20", vs="bob", vs_expression="1d20", reroll=1, vs_reroll=1
    )
    before = discord_table.events()
    for user in (BOB, MIRA):  # the other side, and a GM: ann's side is ann's alone
        for custom_id in buttons(rolled).values():
            answer = click(discord_table, user, custom_id)
            assert "waits for ann's side; only ann may" in refused(discord_table, answer)
    answer = click(discord_table, EVE, buttons(rolled)["Accept (ann)"])
    assert "not a member of session" in refused(discord_table, answer)
    assert discord_table.events() == before
    accepted = click(discord_table, ANN, buttons(rolled)["Accept (ann)"])
    assert "awaiting **bob**'s rerolls: 1 left" in content(accepted)
    answer = click(discord_table, ANN, buttons(accepted)["Accept (bob)"])
    assert "nobody rerolls the other side's dice" in refused(discord_table, answer)
    assert event_types(discord_table, seated)[-1] == "RollAccepted"


def test_a_redelivered_click_rolls_nothing_twice(discord_table: DiscordTable, seated: str) -> None:
    rolled = discord_table.discord.run(
        ANN, "opposed", expression="1d20", vs="bob", vs_expression="1d20", reroll=2, vs_reroll=1
    )
    interaction = discord_table.discord.click(ANN, reroll_button(rolled, "ann"))
    first = discord_table.discord.deliver(interaction)
    after_first = discord_table.events()
    second = discord_table.discord.deliver(interaction)
    assert first == second and discord_table.events() == after_first
    assert "awaiting **ann**'s rerolls: 1 left" in content(first[1])
    assert event_types(discord_table, seated).count("DieRerolled") == 1


def test_a_button_of_a_turn_that_has_passed_is_refused(
    discord_table: DiscordTable, seated: str
) -> None:
    # A GM decides both NPC sides: a second click on the first side's Accept must not
    # accept the second side's turn.
    rolled = discord_table.discord.run(
        MIRA, "opposed", expression="1d20", vs="orc", vs_expression="1d20", reroll=1,
        vs_reroll=1, **{"for": "goblin"},
    )  # fmt: skip
    accept = buttons(rolled)["Accept (goblin)"]
    assert "awaiting **orc**'s rerolls" in content(click(discord_table, MIRA, accept))
    before = discord_table.events()
    again = click(discord_table, MIRA, accept)
    assert "has moved on since this button was shown" in refused(discord_table, again)
    assert discord_table.events() == before
    assert parse_custom_id(accept).turn is not None


def test_a_gms_blind_opposed_check_is_decided_by_the_gm_alone(
    discord_table: DiscordTable, seated: str
) -> None:
    rolled = discord_table.discord.run(
        MIRA, "opposed", expression="1d20+3", vs="goblin", vs_expression="1d20+1", reroll=1,
        vs_reroll=1, blind=True, label="the ambush",
    )  # fmt: skip
    assert rolled["data"]["flags"] == EPHEMERAL  # the dice, and the buttons, to the GM only
    text = content(rolled)
    assert "· (the ambush) · blind\n" in text and "awaiting **mira**'s rerolls" in text
    (notice,) = discord_table.webhooks.messages()
    said, checkpoint = notice["content"].split("\n")
    assert said == "**#1** · the GM rolled blind" and "flags" not in notice
    assert checkpoint.startswith("checkpoint #")
    before = discord_table.events()
    answer = click(discord_table, ANN, buttons(rolled)["Accept (mira)"])
    assert "no roll 1 in session" in refused(discord_table, answer)  # hidden from players
    assert discord_table.events() == before
    accepted = click(discord_table, MIRA, buttons(rolled)["Accept (mira)"])
    assert accepted["type"] == 7 and "awaiting **goblin**'s rerolls" in content(accepted)
    done = click(discord_table, MIRA, reroll_button(accepted, "goblin"))  # a GM's, for an NPC
    assert "\n**goblin wins**" in content(done)  # 20 against 12
    history = content(discord_table.discord.run(ANN, "history"))
    assert "**#1** · the GM rolled blind" in history and "ambush" not in history
    assert len(discord_table.webhooks.messages()) == 1  # the buttons post no second notice


def test_a_player_on_the_other_side_of_a_blind_check_gets_no_rerolls(
    discord_table: DiscordTable, seated: str
) -> None:
    before = discord_table.events()
    answer = discord_table.discord.run(
        MIRA, "opposed", expression="1d20", vs="ann", vs_expression="1d20", vs_reroll=1,
        blind=True,
    )  # fmt: skip
    assert "ann cannot reroll in a blind roll they cannot see" in refused(discord_table, answer)
    answer = discord_table.discord.run(
        ANN, "opposed", expression="1d20", vs="bob", vs_expression="1d20", vs_reroll=1,
        blind=True,
    )  # fmt: skip
    assert "bob cannot reroll in a blind roll they cannot see" in refused(discord_table, answer)
    assert discord_table.events() == before and discord_table.webhooks.calls == []
    rolled = discord_table.discord.run(
        MIRA, "opposed", expression="1d20", vs="ann", vs_expression="1d20", reroll=1, blind=True
    )  # the GM's own side may hold rerolls: the GM sees the roll
    assert "awaiting **mira**'s rerolls" in content(rolled)
    assert "ann's rerolls" not in content(rolled)


def test_a_deferred_blind_opposed_check_waits_privately(
    discord_table: DiscordTable, seated: str, signing_key: Ed25519PrivateKey
) -> None:
    table = build_table(discord_table.url, signing_key, defer_after=0)
    try:
        with table.client:
            command = table.discord.command(
                MIRA, "opposed", expression="1d20", vs="goblin", vs_expression="1d20",
                reroll=1, blind=True,
            )  # fmt: skip
            status, waiting = table.discord.deliver(command)
            assert (status, waiting) == (200, {"type": 5, "data": {"flags": EPHEMERAL}})
            method, _, message = table.webhooks.calls[-2]  # the answer, then the notice
            assert method == "PATCH" and message is not None
            assert "awaiting **mira**'s rerolls" in message["content"]
            notice = table.webhooks.calls[-1][2]
            assert notice is not None
            said, checkpoint = str(notice.pop("content")).split("\n")
            assert said == "**#1** · the GM rolled blind" and checkpoint.startswith("checkpoint #")
            assert notice == {"allowed_mentions": {"parse": []}, "components": []}
    finally:
        table.services.app.close()
        table.engine.dispose()


def test_an_unspent_allowance_carries_into_a_tied_round_and_its_buttons() -> None:
    app = in_memory()
    sid = app.start_session("gm", "Tomb of Ash").session_id
    for name in ("ann", "bob"):
        app.join(name, sid, cmd.JoinSession(name))
    # The GM types in both sides' dice: the other side is an NPC's (R6).
    command = cmd.RequestOpposed(
        CheckSide("gm", "1d20+2"),
        CheckSide("orc", "1d20+1"),
        rerolls=1,
        opponent_rerolls=1,
        faces=(10, 11),
    )
    app.request_roll("gm", sid, command)
    app.accept("gm", sid, 1)
    result = app.accept("gm", sid, 1, faces=(4, 9))  # 12 against 12: a fresh round
    assert isinstance(result.roll, ShownRoll)
    message = roll_message(result.roll, LINKS)
    lines = message.content.split("\n")
    assert lines[2:6] == [
        "round 1: gm 1d20 (10) + 2 = 12 · orc 1d20 (11) + 1 = 12 · tie",
        "round 2: gm 1d20 (4) + 2 = 6 · orc 1d20 (9) + 1 = 10",
        "typed in: round 1 gm by gm · round 1 orc by gm · round 2 gm by gm · round 2 orc by gm",
        "awaiting **gm**'s rerolls: 1 left (effect); pick one of their dice to reroll, or accept",
    ]
    ids = {button.label: button.custom_id for row in message.rows for button in row}
    assert ids == {
        "Accept (gm)": f"dl:accept:{sid}:1:0:2",
        "Reroll gm's d20 #0 (4)": f"dl:reroll:{sid}:1:0:0:2",
    }


def test_r6_a_message_names_who_typed_in_each_sides_dice() -> None:
    app = in_memory()
    sid = app.start_session("gm", "Tomb of Ash").session_id
    for name in ("ann", "bob"):
        app.join(name, sid, cmd.JoinSession(name))
    # ann types in her own die; bob, holding a reroll, types in his new one.
    duel = cmd.RequestOpposed(
        CheckSide("ann", "1d20+30"),
        CheckSide("bob", "1d20"),
        exploding=False,  # so ann's 40 beats any face of bob's
        opponent_rerolls=1,
        faces=(10,),
    )
    app.request_roll("ann", sid, duel)
    result = app.reroll("bob", sid, cmd.Reroll(1, (0,), faces=(4,)))
    assert isinstance(result.roll, ShownRoll)
    lines = roll_message(result.roll, LINKS).content.split("\n")
    assert "typed in: round 1 ann by ann · round 1 bob by bob" in lines


def test_r6_the_other_member_rolls_their_own_side_with_a_button(
    discord_table: DiscordTable, seated: str
) -> None:
    rolled = discord_table.discord.run(
        ANN, "opposed", expression="1d20", vs="bob", vs_expression="1d20", vs_rolls_own=True
    )
    text = content(rolled)
    assert "bob yet to roll" in text and "awaiting **bob**'s own dice" in text
    assert list(buttons(rolled)) == ["Roll (bob)"]
    button = buttons(rolled)["Roll (bob)"]
    before = discord_table.events()
    for user in (ANN, MIRA):  # bob's dice are his own to roll
        answer = click(discord_table, user, button)
        assert "only bob may roll it" in refused(discord_table, answer)
    assert discord_table.events() == before
    rolled_side = click(discord_table, BOB, button)
    assert rolled_side["type"] == 7 and "yet to roll" not in content(rolled_side)
    sides = [
        (record.data["side"], record.data["dice"][0]["nonce"])
        for record in discord_table.store.read_stream(seated)
        if record.event_type == "DiceRolled"
    ]
    assert sides[0][0] == 0 and sides[1][0] == 1 and sides[1][1] > sides[0][1]
    discord_table.discord.run(MIRA, "end")
    result = verify_with_cli(discord_table.url, seated)
    assert result.exit_code == 0, result.output

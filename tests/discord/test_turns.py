"""Two clicks on one turn's button of an opposed check: exactly one takes the turn.

The turn a button was shown for travels in the reroll or accept command and is checked
where the command is decided, under the session's lock. So however two clicks on the
same button interleave, the first decided takes the turn and the second is refused,
rather than acting on the other side's dice.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from diceledger.domain.errors import CommandRefusedError
from diceledger.domain.session import commands as cmd
from diceledger.infra.app.application import Application
from diceledger.infra.app.results import RollResult
from diceledger.infra.bootstrap import ServerParts, bootstrap_server
from diceledger.web.discord.actions import TableActions
from diceledger.web.discord.payload import Interaction, parse_interaction
from diceledger.web.discord.replies import Reply
from diceledger.web.discord.rolls import Links
from tests.discord.conftest import MIRA, FakeDiscord, User

WAIT = 30.0  # seconds a thread waits for the other at the barrier before the test fails


class Table:
    """A GM's Discord table driven through the face's actions, without HTTP in between."""

    def __init__(self, parts: ServerParts) -> None:
        self.parts = parts
        self.actions = TableActions(parts.app, parts.discord, Links())
        self.discord = FakeDiscord(self._unposted, Ed25519PrivateKey.generate())

    @staticmethod
    def _unposted(body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
        raise AssertionError("these interactions go straight to the actions")

    def run(self, payload: dict[str, Any]) -> Reply:
        interaction = parse_interaction(json.dumps(payload).encode())
        assert isinstance(interaction, Interaction)
        return self.actions.run(interaction)

    def command(self, user: User, sub: str, **options: Any) -> Reply:
        return self.run(self.discord.command(user, sub, **options))

    def click(self, user: User, custom_id: str) -> Reply:
        return self.run(self.discord.click(user, custom_id))


@pytest.fixture
def table(db_url: str) -> Iterator[Table]:
    parts = bootstrap_server(db_url)
    try:
        yield Table(parts)
    finally:
        parts.app.close()


def buttons(reply: Reply) -> dict[str, str]:
    return {button.label: button.custom_id for row in reply.message.rows for button in row}


def opposed_of_two_npcs(table: Table) -> tuple[str, dict[str, str]]:
    """Start a session and roll a GM's opposed check between two NPCs, each with a reroll.

    The GM decides both sides, so a click meant for the first side's turn would, if obeyed
    late, act on the second side's.
    """
    started = table.command(MIRA, "start", title="Tomb of Ash")
    session_id = started.message.content.split("(session `", 1)[1].split("`", 1)[0]
    rolled = table.command(
        MIRA, "opposed", expression="1d20", vs="orc", vs_expression="1d20", reroll=1,
        vs_reroll=1, **{"for": "goblin"},
    )  # fmt: skip
    return session_id, buttons(rolled)


def gate(app: Application, method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hold each call of ``app.method`` until two threads are in it, then let both go on.

    Both clicks have then passed every look the face takes before it calls the
    application, the interleaving in which a read-compare-act check lets both through.
    """
    barrier = threading.Barrier(2, timeout=WAIT)
    original: Callable[..., RollResult] = getattr(app, method)

    def held(*args: Any) -> RollResult:
        barrier.wait()
        return original(*args)

    monkeypatch.setattr(app, method, held)


def click_together(table: Table, custom_id: str, together: bool) -> list[Reply | Exception]:
    """Click one button twice from two threads; return each click's reply or refusal."""
    outcomes: list[Reply | Exception] = []

    def click() -> None:
        try:
            outcomes.append(table.click(MIRA, custom_id))
        except CommandRefusedError as error:
            outcomes.append(error)

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
        if not together:
            thread.join(WAIT)
    for thread in threads:
        thread.join(WAIT)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes


@pytest.mark.parametrize("together", [True, False], ids=["at-once", "one-after-the-other"])
@pytest.mark.parametrize("button", ["Accept (goblin)", "Reroll goblin's d20 #0"])
def test_two_clicks_on_one_turns_button_take_the_turn_once(
    table: Table, monkeypatch: pytest.MonkeyPatch, together: bool, button: str
) -> None:
    session_id, shown = opposed_of_two_npcs(table)
    custom_id = next(i for label, i in shown.items() if label.startswith(button))
    method = "accept" if button.startswith("Accept") else "reroll"
    if together:
        gate(table.parts.app, method, monkeypatch)
    outcomes = click_together(table, custom_id, together)
    won = [o for o in outcomes if isinstance(o, Reply)]
    lost = [o for o in outcomes if isinstance(o, Exception)]
    assert len(won) == 1 and len(lost) == 1, outcomes
    assert "has moved on since this button was shown" in str(lost[0])
    # The turn passed to the orc, whose own turn is still whole.
    assert "awaiting **orc**'s rerolls: 1 left" in won[0].message.content
    assert table.parts.app.roll("mira", session_id, 1).view["waiting_for"] == "orc"
    events = [line.event for line in table.parts.app.replay("mira", session_id).lines]
    assert events.count("RollAccepted") + events.count("DieRerolled") == 1


def test_a_command_for_a_turn_that_has_passed_changes_nothing(table: Table) -> None:
    session_id, _ = opposed_of_two_npcs(table)
    app = table.parts.app
    app.accept("mira", session_id, 1, turn=cmd.Turn(0, 1))
    before = app.session("mira", session_id).version
    with pytest.raises(CommandRefusedError, match="has moved on: it waits for orc's side"):
        app.accept("mira", session_id, 1, turn=cmd.Turn(0, 1))
    with pytest.raises(CommandRefusedError, match="has moved on"):
        app.reroll("mira", session_id, cmd.Reroll(1, (0,), turn=cmd.Turn(0, 1)))
    assert app.session("mira", session_id).version == before
    app.accept("mira", session_id, 1, turn=cmd.Turn(1, 1))  # the turn it does wait for

"""Nobody takes over an NPC's side of an opposed check by joining under its name (R6)."""

from __future__ import annotations

from diceledger.domain.errors import CommandRefusedError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.events import CheckSide
from diceledger.domain.session.opposed import may_decide
from diceledger.domain.session.state import replay
from tests.domain.session.harness import Table, event_as, names

# ann against the GMs' goblin; the goblin holds one reroll, so the check waits for its side.
AGAINST_GOBLIN = cmd.RequestOpposed(
    CheckSide("ann", "1d20"), CheckSide("Goblin", "1d20"), opponent_rerolls=1
)


def waiting_on_the_goblin() -> Table:
    t = Table()
    t.run("gm", AGAINST_GOBLIN, faces=(12, 7))
    assert "CheckResolved" not in names(t.events)
    return t


def test_r6_a_player_cannot_join_under_the_name_of_an_npc_rolled_for_in_the_session() -> None:
    t = waiting_on_the_goblin()
    error = t.refused("Goblin", cmd.JoinSession("Goblin"))
    assert isinstance(error, CommandRefusedError)
    assert str(error) == "'Goblin' is an NPC of session 's1'; join under another name"
    # A look-alike of the NPC's name is refused too.
    assert isinstance(t.refused("goblin", cmd.JoinSession("goblin")), CommandRefusedError)


def test_r6_the_npc_side_of_a_pending_opposed_check_stays_the_gms_to_decide() -> None:
    t = waiting_on_the_goblin()
    t.run("gm", cmd.Accept(1))
    resolved = event_as(ev.CheckResolved, t.events[-1])
    assert (resolved.total, resolved.opponent_total, resolved.winner) == (12, 7, "ann")


def test_r6_an_npc_side_stays_the_gms_even_in_a_log_where_someone_joined_under_its_name() -> None:
    # A log written before the refusal: the newcomer "Goblin" must not decide the NPC's side.
    t = waiting_on_the_goblin()
    events = [*t.events, ev.PlayerJoined("Goblin", "player", "", "Goblin")]
    state = replay(enumerate(events, start=1))
    request = state.rolls[1].request
    assert may_decide(state, request, 1, "gm")
    assert not may_decide(state, request, 1, "Goblin")


def test_r6_a_player_cannot_join_under_the_name_of_an_npc_character() -> None:
    t = Table()
    t.run("gm", cmd.CreateCharacter("Ogre", None))
    error = t.refused("Ogre", cmd.JoinSession("Ogre"))
    assert isinstance(error, CommandRefusedError) and "is an NPC" in str(error)

"""What the application hands a face of a roll: a ShownRoll or a HiddenRoll, decided once.

A face renders what it is given; a viewer who may not see a roll gets a HiddenRoll, which
holds no request, no dice and no total, from every read and every command alike.
"""

from __future__ import annotations

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.json import JsonObject
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.visibility import EVERYONE
from diceledger.infra.app.results import HiddenRoll, ShownRoll
from diceledger.infra.bootstrap import in_memory


def test_a_hidden_roll_reaches_whoever_may_not_see_it_as_a_hidden_roll_only() -> None:
    app = in_memory()
    sid = app.start_session("gm", "Tomb of Ash").session_id
    app.join("ann", sid, cmd.JoinSession("ann"))
    blind = cmd.RequestRoll(
        RollKind.CHECK,
        "1d20+3",
        target=Target(15),
        mode=RollMode.BLIND,
        label="ambush",
        faces=(16,),
    )
    made = app.request_roll("gm", sid, blind)
    stub: JsonObject = {
        "session_id": sid,
        "roll_id": 1,
        "roller": "gm",
        "mode": "blind",
        "blind": True,
        "status": "hidden",
        "text": "the GM rolled blind",
    }
    for seen in (
        app.roll("ann", sid, 1).roll,
        app.roll(EVERYONE, sid, 1).roll,
        app.session("ann", sid).rolls[0],
        app.session(EVERYONE, sid).rolls[0],
    ):
        assert seen == HiddenRoll(sid, 1, "gm", RollMode.BLIND, "the GM rolled blind", stub)
    assert app.session("ann", sid).view["rolls"] == [stub]
    assert isinstance(made.roll, ShownRoll) and made.roll.view["total"] == 19
    assert isinstance(app.session("gm", sid).rolls[0], ShownRoll)
    revealed = app.reveal_roll("gm", sid, 1)
    assert isinstance(revealed.roll, ShownRoll)
    seen = app.roll("ann", sid, 1).roll
    assert isinstance(seen, ShownRoll) and seen.view["label"] == "ambush"

"""Honest sessions for verification tests: every kind of roll the engine knows."""

from __future__ import annotations

import hashlib
import itertools

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from tests.infra.support import MemoryServices, memory_services


def honest_session(rounds: int = 20, end: bool = True) -> tuple[MemoryServices, str]:
    """Play ``rounds`` rounds of eight rolls each (rerolls, explosions, ties, blind, manual).

    Its seeds are fixed, so the ties and explosions the tests look for are there every run.
    """
    services = memory_services()
    sessions = services.sessions
    epochs = itertools.count(1)
    sessions.reseed(lambda: hashlib.sha256(b"honest %d" % next(epochs)).digest(), lambda: "5eed00")
    sid = sessions.start("Honest table", "gm").session_id
    sessions.execute(sid, "ann", cmd.JoinSession("ann", "ann's entropy"))
    sessions.execute(sid, "bob", cmd.JoinSession("bob"))
    _sheets(services, sid)
    for n in range(rounds):
        act = f"a{n}"
        sessions.execute(
            sid,
            "ann",
            cmd.RequestRoll(
                RollKind.CHECK,
                "1d20+3[STR]",
                advantage=(Amount(1, "flank"),),
                target=Target(14),
                action_id=act,
                rerolls=1,
                auto_reroll=True,
                salt=f"s{n}",
            ),
        )
        sessions.execute(sid, "ann", cmd.RequestRoll(RollKind.DAMAGE, "2d6+1d4", action_id=act))
        sessions.execute(
            sid,
            "bob",
            cmd.RequestRoll(RollKind.DAMAGE, "3d4", rerolls=2, reroll_scope=RerollScope.DAMAGE),
        )
        waiting = max(sessions.load(sid).rolls)
        sessions.execute(sid, "bob", cmd.Reroll(waiting, (0,)))
        sessions.execute(sid, "bob", cmd.Accept(waiting))
        sessions.execute(
            sid,
            "bob",
            cmd.RequestRoll(
                RollKind.SAVE,
                "1d20+1",
                target=Target.dc(3),
                against="gas",
                median=True,
                disadvantage=(Amount(1),),
            ),
        )
        sessions.execute(
            sid, "gm", cmd.RequestOpposed(CheckSide("gm", "1d4"), CheckSide("orc", "1d4"))
        )
        blind = sessions.execute(
            sid,
            "gm",
            cmd.RequestRoll(RollKind.EFFECT, "1d20", mode=RollMode.BLIND, on_behalf_of="orc"),
        )
        if n == 0:
            sessions.execute(sid, "gm", cmd.RevealRoll(max(blind.state.rolls)))
        sessions.execute(
            sid, "ann", cmd.RequestRoll(RollKind.EFFECT, "(2d6+3)/2", eased=(Amount(1),))
        )
        sessions.execute(sid, "bob", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(6, 6, 4, 2)))
        if n == 0:
            _rolls_from_sheets(services, sid)
        if n == rounds // 2:
            sessions.reveal_seed(sid, "gm")
    sessions.execute(sid, "gm", cmd.RetireCharacter("Gas"))
    if end:
        sessions.end(sid, "gm")
    return services, sid


def _sheets(services: MemoryServices, sid: str) -> None:
    """ann's Thalia and bob's Brak keep their own sheets; the GMs keep the NPC Gas."""
    run = services.sessions.execute
    run(sid, "gm", cmd.SetSheetRights("player"))
    run(sid, "ann", cmd.CreateCharacter("Thalia", "ann"))
    run(sid, "ann", cmd.SetAttribute("Thalia", "STR", 3, "Strength"))
    run(sid, "ann", cmd.SetQuality("Thalia", "Athletics", 2))
    run(sid, "bob", cmd.CreateCharacter("Brak", "bob"))
    run(sid, "bob", cmd.SetAttribute("Brak", "STR", -1))
    run(sid, "gm", cmd.CreateCharacter("Gas", None))
    run(sid, "gm", cmd.SetAttribute("Gas", "WIS", 1))


def _rolls_from_sheets(services: MemoryServices, sid: str) -> None:
    """A check, a save with a DC by reference (R4), an opposed check (R6) and a saved roll
    from the sheets."""
    run = services.sessions.execute
    run(sid, "ann", cmd.RequestRoll(RollKind.CHECK, "1d20+@STR+@Athletics", target=Target(12)))
    save = cmd.RequestRoll(RollKind.SAVE, "1d20+@STR", dc_reference="WIS", against="Gas")
    run(sid, "bob", save)
    run(
        sid, "ann", cmd.RequestOpposed(CheckSide("ann", "1d20+@STR"), CheckSide("bob", "1d20+@STR"))
    )
    run(sid, "ann", cmd.SaveRoll("Thalia", "Greataxe", RollKind.DAMAGE, "1d12+@STR"))
    run(sid, "ann", cmd.RequestRoll(RollKind.DAMAGE, "", saved="Greataxe"))


def records_of(services: MemoryServices, sid: str) -> list[RecordedEvent]:
    """Return the session's records in stream order."""
    return list(services.store.read_stream(sid))

"""The session service: load, decide, append, retry on conflict (in memory, and once on SQLite)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.dice.sources import SeededSource
from diceledger.domain.errors import (
    ConcurrencyError,
    DiceledgerError,
    NotFoundError,
)
from diceledger.domain.hashchain import verify_chain
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import CheckSide, DiceRolled, RollRequested
from diceledger.domain.session.modes import RollMode
from diceledger.infra.app.sessions import MAX_ATTEMPTS, SessionService, session_id_for
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import InMemorySeedVault, SeedVault
from tests.infra.support import memory_services


class Rivalry:
    """Let a rival writer slip in just before the next append lands (once, or every time)."""

    rival: Callable[[], object] | None = None
    every_time = False
    appends = 0

    def append(
        self, stream_id: str, events: Sequence[NewEvent], expected_version: int
    ) -> list[RecordedEvent]:
        self.appends += 1
        rival = self.rival
        if rival is not None:
            self.rival = None  # the rival's own append must not summon another rival
            try:
                rival()
            finally:
                if self.every_time:
                    self.rival = rival
        appended: list[RecordedEvent] = super().append(stream_id, events, expected_version)  # type: ignore[misc]
        return appended


class RacingStore(Rivalry, InMemoryEventStore):
    """The in-memory store with a rival writer."""


class RacingSqlStore(Rivalry, SqlEventStore):
    """The SQL store with a rival writer."""


def table(service: SessionService) -> str:
    session_id = service.start("Tomb of Ash", "gm").session_id
    service.execute(session_id, "ann", cmd.JoinSession("ann", "ann's words"))
    service.execute(session_id, "bob", cmd.JoinSession("bob"))
    return session_id


def racing() -> tuple[SessionService, RacingStore]:
    store = RacingStore()
    return SessionService(store, InMemorySeedVault()), store


def test_start_commits_to_a_seed_kept_in_the_vault() -> None:
    services = memory_services()
    outcome = services.sessions.start("Tomb of Ash", "gm")
    state = outcome.state
    assert (state.title, state.creator, state.members["gm"].role) == ("Tomb of Ash", "gm", "gm")
    seed = services.vault.get(outcome.session_id, state.epoch.commitment)
    assert seed is not None and len(seed) == 32
    assert hashlib.sha256(seed).hexdigest() == state.epoch.commitment
    recorded = [e.event_type for e in services.store.read_stream(outcome.session_id)]
    assert recorded == ["SessionStarted", "PlayerJoined", "SeedCommitted"]


def test_session_ids_are_a_slug_of_the_title_and_a_suffix() -> None:
    assert session_id_for("Tomb of Ash!", "1a2b3c") == "tomb-of-ash-1a2b3c"
    assert session_id_for("***", "1a2b3c") == "session-1a2b3c"
    service = SessionService(InMemoryEventStore(), InMemorySeedVault(), new_suffix=lambda: "x1")
    assert service.start("Night Market", "gm").session_id == "night-market-x1"


def test_load_refuses_an_unknown_session() -> None:
    with pytest.raises(NotFoundError, match="unknown session 'nope'"):
        memory_services().sessions.load("nope")


def test_execute_returns_what_it_appended_and_the_new_state() -> None:
    services = memory_services()
    session_id = table(services.sessions)
    outcome = services.sessions.execute(
        session_id, "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(6, 2))
    )
    types = [record.event_type for record, _ in outcome.appended]
    assert types == ["RollRequested", "DiceRolled", "DieExploded", "RollResolved"]
    assert outcome.state.rolls[1].resolution is not None
    assert outcome.state.rolls[1].resolution.total == 8
    stored = list(services.store.read_stream(session_id))
    assert [r.event_id for r, _ in outcome.appended] == [r.event_id for r in stored[-4:]]


def test_every_event_of_one_command_shares_its_actor_and_correlation() -> None:
    services = memory_services()
    session_id = table(services.sessions)
    outcome = services.sessions.execute(session_id, "bob", cmd.RequestRoll(RollKind.EFFECT, "1d4"))
    metas = [record.meta for record, _ in outcome.appended]
    assert {m["actor"] for m in metas} == {"bob"}
    assert len({m["correlation_id"] for m in metas}) == 1
    assert all(m["client_version"] for m in metas)


REFUSALS: list[tuple[str, str, cmd.Command]] = [
    ("player ends the session", "ann", cmd.EndSession(b"x" * 32)),
    ("outsider rolls", "eve", cmd.RequestRoll(RollKind.EFFECT, "1d6")),
    ("bad notation", "ann", cmd.RequestRoll(RollKind.EFFECT, "1d7")),
    (
        "player holds rerolls on a blind roll",
        "ann",
        cmd.RequestRoll(RollKind.EFFECT, "1d6", rerolls=1, mode=RollMode.BLIND),
    ),
    ("player rolls for an NPC", "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", on_behalf_of="orc")),
    ("too few faces", "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(6,))),
    ("too many faces", "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(1, 2))),
    ("face off the die", "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(7,))),
    ("joining twice", "ann", cmd.JoinSession("ann")),
    ("player adds a co-GM", "ann", cmd.JoinSession("cat", as_gm=True)),
    (
        "player opposes an NPC",
        "ann",
        cmd.RequestOpposed(CheckSide("ann", "1d20"), CheckSide("ogre", "1d20")),
    ),
    ("unknown roll", "ann", cmd.Accept(7)),
]


@pytest.mark.parametrize(("what", "actor", "command"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_refused_command_appends_nothing(what: str, actor: str, command: cmd.Command) -> None:
    services = memory_services()
    session_id = table(services.sessions)
    before = (services.store.head_position(), list(services.store.read_stream(session_id)))
    with pytest.raises(DiceledgerError):
        services.sessions.execute(session_id, actor, command)
    after = (services.store.head_position(), list(services.store.read_stream(session_id)))
    assert after == before


def test_r11_spending_a_spent_allowance_appends_nothing() -> None:
    services = memory_services()
    session_id = table(services.sessions)
    services.sessions.execute(session_id, "ann", cmd.RequestRoll(RollKind.EFFECT, "2d6", rerolls=1))
    head = services.store.head_position()
    with pytest.raises(DiceledgerError, match="2 rerolls asked, 1 left"):
        services.sessions.execute(session_id, "ann", cmd.Reroll(1, (0, 1)))
    assert services.store.head_position() == head


def test_a_conflicting_writer_makes_the_command_decide_again_on_the_new_state() -> None:
    service, store = racing()
    session_id = table(service)
    store.rival = lambda: service.execute(
        session_id, "bob", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(2,))
    )
    appends = store.appends
    outcome = service.execute(
        session_id, "ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10), faces=(15,))
    )
    # One append lost to the rival, the rival's own, then the retry that landed.
    assert store.appends - appends == 3
    requests = [e for _, e in outcome.appended if isinstance(e, RollRequested)]
    assert [(r.roll_id, r.nonce, r.roller) for r in requests] == [(2, 2, "ann")]
    state = service.load(session_id)
    assert [(r.roll_id, r.request.roller) for r in state.rolls.values()] == [(1, "bob"), (2, "ann")]
    assert state.rolls[2].resolution is not None and state.rolls[2].resolution.total == 15
    assert verify_chain(store.read_stream(session_id)) is None


def test_a_seeded_roll_retried_after_a_conflict_draws_under_its_new_nonce() -> None:
    service, store = racing()
    session_id = table(service)
    store.rival = lambda: service.execute(
        session_id, "bob", cmd.RequestRoll(RollKind.EFFECT, "1d4")
    )
    outcome = service.execute(session_id, "ann", cmd.RequestRoll(RollKind.EFFECT, "4d20n"))
    revealed = service.reveal_seed(session_id, "gm").state.epochs[0].seed
    assert revealed is not None
    rolled = outcome.state.rolls[2].dice[0]
    assert isinstance(rolled, DiceRolled)
    dice = rolled.dice
    assert {d.nonce for d in dice} == {2}
    source = SeededSource(bytes.fromhex(revealed), session_id, 2, "ann's words")
    assert [source.draw(20).face for _ in dice] == [d.face for d in dice]


def test_a_command_that_always_loses_gives_up_busy_and_appends_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("diceledger.infra.app.sessions.time.sleep", lambda seconds: None)
    service, store = racing()
    session_id = table(service)
    store.every_time = True
    joined: list[str] = []

    def rival() -> None:
        joined.append(f"npc{len(joined)}")
        service.execute(session_id, "gm", cmd.JoinSession(joined[-1]))

    store.rival = rival
    with pytest.raises(ConcurrencyError, match="busy"):
        service.execute(session_id, "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6"))
    state = service.load(session_id)
    assert state.rolls == {}
    assert len(joined) == MAX_ATTEMPTS
    assert set(joined) <= set(state.members)
    assert verify_chain(store.read_stream(session_id)) is None


def test_a_second_process_on_the_same_sqlite_file_wins_the_race_and_the_first_retries(
    sqlite_url: str,
) -> None:
    engines = [make_engine(sqlite_url), make_engine(sqlite_url)]
    try:
        racing_store = RacingSqlStore(engines[0])
        mine = SessionService(racing_store, SeedVault(engines[0]))
        theirs = SessionService(SqlEventStore(engines[1]), SeedVault(engines[1]))
        session_id = table(mine)
        racing_store.rival = lambda: theirs.execute(
            session_id, "bob", cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(2,))
        )
        outcome = mine.execute(session_id, "ann", cmd.RequestRoll(RollKind.EFFECT, "1d8"))
        assert outcome.state.rolls[2].request.roller == "ann"
        state = theirs.load(session_id)
        assert [(r.roll_id, r.request.roller, r.request.nonce) for r in state.rolls.values()] == [
            (1, "bob", 1),
            (2, "ann", 2),
        ]
        assert verify_chain(racing_store.read_stream(session_id)) is None
    finally:
        for engine in engines:
            engine.dispose()

"""Live updates: appends announced by the application wake the streams of their session."""

from __future__ import annotations

import asyncio
import queue
import threading
import time

import pytest

from diceledger.domain.errors import DiceledgerError
from diceledger.domain.session import commands as cmd
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.live.postgres import PostgresChannel, parse_payload, payload
from diceledger.infra.live.updates import LiveUpdates, Wakeups
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.vault.seeds import InMemorySeedVault

WAIT = 5.0  # seconds a test waits for a wake-up that must come


def test_an_append_is_announced_with_its_session_and_new_version() -> None:
    heard: list[tuple[str, int]] = []
    service = SessionService(
        InMemoryEventStore(), InMemorySeedVault(), on_appended=lambda s, v: heard.append((s, v))
    )
    session = service.start("Tomb", "gm").session_id
    service.execute(session, "ann", cmd.JoinSession("ann"))
    assert heard == [(session, 3), (session, 4)]


def test_a_refused_command_announces_nothing() -> None:
    heard: list[tuple[str, int]] = []
    service = SessionService(
        InMemoryEventStore(), InMemorySeedVault(), on_appended=lambda s, v: heard.append((s, v))
    )
    session = service.start("Tomb", "gm").session_id
    with pytest.raises(DiceledgerError):
        service.execute(session, "ann", cmd.RevealRoll(99))
    assert heard == [(session, 3)]


async def woken(wakeups: Wakeups, session_id: str, announce: threading.Thread) -> bool:
    """Subscribe, let ``announce`` run in its own thread, and tell whether the stream woke."""
    with wakeups.subscribe(session_id) as subscription:
        announce.start()
        result = await subscription.wait(1.0)
        announce.join(WAIT)
        return result


def test_an_announcement_from_another_thread_wakes_the_streams_of_its_session() -> None:
    async def scenario() -> bool:
        wakeups = Wakeups()
        wakeups.attach(asyncio.get_running_loop())
        return await woken(wakeups, "s1", threading.Thread(target=wakeups.announce, args=("s1", 7)))

    assert asyncio.run(scenario()) is True


def test_an_announcement_of_another_session_wakes_nobody() -> None:
    async def scenario() -> bool:
        wakeups = Wakeups()
        wakeups.attach(asyncio.get_running_loop())
        return await woken(wakeups, "s1", threading.Thread(target=wakeups.announce, args=("s2", 7)))

    assert asyncio.run(scenario()) is False


def test_an_announcement_already_covered_wakes_nobody_again() -> None:
    # A worker hears its own appends back from PostgreSQL: the second telling is dropped.
    async def scenario() -> tuple[bool, bool]:
        wakeups = Wakeups()
        wakeups.attach(asyncio.get_running_loop())
        with wakeups.subscribe("s1") as subscription:
            wakeups.announce("s1", 7)
            first = await subscription.wait(1.0)
            wakeups.announce("s1", 7)
            again = await subscription.wait(0.2)
            return first, again

    assert asyncio.run(scenario()) == (True, False)


def test_ending_the_streams_wakes_every_one_and_marks_them_ending() -> None:
    async def scenario() -> list[bool]:
        live = LiveUpdates()
        live.start(asyncio.get_running_loop())
        with live.wakeups.subscribe("s1") as one, live.wakeups.subscribe("s2") as two:
            live.end_streams()
            return [await one.wait(1.0), await two.wait(1.0), one.ending, two.ending]

    assert asyncio.run(scenario()) == [True, True, True, True]


def test_a_notification_payload_carries_only_the_session_and_version() -> None:
    text = payload("tomb-1a2b3c", 42)
    assert text == '{"session_id":"tomb-1a2b3c","version":42}'
    assert parse_payload(text) == ("tomb-1a2b3c", 42)
    for junk in ("", "42", "[]", '{"session_id": 1, "version": 2}', '{"session_id": "s"}'):
        assert parse_payload(junk) is None


@pytest.mark.postgres
def test_an_append_published_by_one_worker_is_heard_by_another(postgres_url: str) -> None:
    engines = [make_engine(postgres_url), make_engine(postgres_url)]
    publisher, listener = (PostgresChannel(engine) for engine in engines)
    heard: queue.Queue[tuple[str, int]] = queue.Queue()
    listening = threading.Event()
    listener.start(lambda s, v: heard.put((s, v)), listening.set)
    try:
        assert listening.wait(WAIT), "the listener never connected"
        publisher.publish("tomb-1a2b3c", 9)
        deadline = time.monotonic() + WAIT
        got = None
        while got != ("tomb-1a2b3c", 9) and time.monotonic() < deadline:
            got = heard.get(timeout=WAIT)  # other tests' sessions may share the channel
        assert got == ("tomb-1a2b3c", 9)
    finally:
        listener.stop()
        for engine in engines:
            engine.dispose()

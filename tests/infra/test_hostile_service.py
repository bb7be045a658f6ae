"""The session service under refusal: no seed kept for a refused command, clear dead ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from diceledger.domain.dice.request import RollKind
from diceledger.domain.errors import (
    CommandRefusedError,
    CorruptLogError,
    InvalidInputError,
    PermissionDeniedError,
)
from diceledger.domain.session import commands as cmd
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.store.exporting import import_export, write_export
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.vault.seeds import InMemorySeedVault
from tests.infra.support import memory_services


class CountingVault(InMemorySeedVault):
    """A vault that counts the seeds put into it."""

    def __init__(self) -> None:
        super().__init__()
        self.puts = 0

    def put(self, stream_id: str, seed: bytes) -> str:
        self.puts += 1
        return super().put(stream_id, seed)


def test_a_refused_start_keeps_no_seed() -> None:
    vault = CountingVault()
    service = SessionService(InMemoryEventStore(), vault)
    with pytest.raises(InvalidInputError):
        service.start("Tomb\x1b[2J", "gm")
    with pytest.raises(InvalidInputError):
        service.start("Tomb", "g\nm")
    assert vault.puts == 0
    service.start("Tomb", "gm")
    assert vault.puts == 1


def test_a_refused_seed_reveal_keeps_no_seed() -> None:
    vault = CountingVault()
    service = SessionService(InMemoryEventStore(), vault)
    sid = service.start("Tomb", "gm").session_id
    service.execute(sid, "ann", cmd.JoinSession("ann"))
    with pytest.raises(PermissionDeniedError):
        service.reveal_seed(sid, "ann")
    service.end(sid, "gm")
    with pytest.raises(CommandRefusedError, match="has ended"):
        service.reveal_seed(sid, "gm")
    assert vault.puts == 1
    assert vault.get(sid, service.load(sid).epoch.commitment) is not None


def test_an_open_session_moved_elsewhere_says_why_it_cannot_roll(tmp_path: Path) -> None:
    source = memory_services()
    sid = source.sessions.start("Tomb", "gm").session_id
    source.sessions.execute(sid, "ann", cmd.JoinSession("ann"))
    path = tmp_path / "open.jsonl"
    write_export(source.store.read_stream(sid), path)
    target = memory_services()
    import_export(target.store, path)
    with pytest.raises(CorruptLogError) as raised:
        target.sessions.execute(sid, "ann", cmd.RequestRoll(RollKind.EFFECT, "1d6"))
    message = str(raised.value)
    assert "the seed vault has no seed for epoch 1" in message
    assert "imported while open" in message and "end it there" in message

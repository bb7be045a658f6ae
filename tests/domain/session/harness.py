"""Run commands against the pure aggregate, with dice scripted per nonce."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime
from typing import TypeVar

from diceledger.domain.dice.sources import DiceSource, Draw, OneAtATime, Provenance
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.events import Event
from diceledger.domain.session.state import SessionState, evolve

E = TypeVar("E", bound=Event)


def event_as(cls: type[E], event: Event) -> E:
    """Return ``event``, failing the test unless it is a ``cls``."""
    assert isinstance(event, cls), event
    return event


def names(events: Iterable[Event]) -> list[str]:
    """Return the type name of each event, in order."""
    return [type(event).__name__ for event in events]


class Scripted:
    """Faces for seeded dice, by nonce; records which nonces were asked for."""

    def __init__(self, faces: dict[int, Iterable[int]] | None = None) -> None:
        self.faces = {nonce: list(f) for nonce, f in (faces or {}).items()}
        self.nonces: list[int] = []

    def __call__(self, nonce: int, client_seed: str, salt: str) -> DiceSource:
        self.nonces.append(nonce)
        queue = self.faces.setdefault(nonce, [])
        return _Queue(queue)


class _Queue(OneAtATime):
    def __init__(self, faces: list[int]) -> None:
        self.faces = faces
        self.word = 0

    def draw(self, sides: int) -> Draw:
        face = self.faces.pop(0) if self.faces else 1
        self.word += 1
        return Draw(sides, face, Provenance.SEEDED, 0, self.word - 1)


class Table:
    """A session under test: state, the events so far, and scripted dice."""

    def __init__(self, gm: str = "gm", players: Iterable[str] = ("ann", "bob")) -> None:
        self.state = SessionState()
        self.events: list[Event] = []
        self.dice = Scripted()
        self.seed = b"epoch one seed"
        self.now: datetime | None = None  # the moment commands are decided at, if any
        self.run(gm, cmd.StartSession("s1", "Test table", hashlib.sha256(self.seed).hexdigest()))
        for player in players:
            self.run(player, cmd.JoinSession(player))

    def run(self, actor: str, command: cmd.Command, faces: Iterable[int] = ()) -> list[Event]:
        self.dice.faces.setdefault(self.state.next_nonce, []).extend(faces)
        events = decide(self.state, command, Context(actor, self.dice, self.now))
        for event in events:
            evolve(self.state, self.state.version + 1, event)
        self.events += events
        return events

    def refused(self, actor: str, command: cmd.Command) -> Exception:
        version = self.state.version
        try:
            decide(self.state, command, Context(actor, self.dice, self.now))
        except Exception as error:  # returned for the test to inspect
            assert self.state.version == version
            return error
        raise AssertionError(f"{command} by {actor} was not refused")

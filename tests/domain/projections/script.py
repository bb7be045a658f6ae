"""Hand-built sessions for the projection tests: commands decided by the domain, typed-in dice.

Each command's events get the next store positions and a time one minute after the last
command, starting at ``START``; no clock and no database are involved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.dice.sources import DiceSource, SeededSource
from diceledger.domain.projections.logged import Logged
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.state import SessionState, evolve

START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
SEED = b"s" * 32


@dataclass
class Script:
    """Play commands on one session and keep its log as Logged events."""

    session_id: str = "tomb-1a2b3c"
    log: list[Logged] = field(default_factory=list)
    state: SessionState = field(default_factory=SessionState)
    next_position: int = 1
    clock: datetime = START

    @classmethod
    def table(cls, *players: str, session_id: str = "tomb-1a2b3c") -> Script:
        """Start a session run by 'gm' and join the players."""
        script = cls(session_id)
        commitment = hashlib.sha256(SEED).hexdigest()
        script.do("gm", cmd.StartSession(session_id, "Tomb", commitment))
        for name in players:
            script.do(name, cmd.JoinSession(name))
        return script

    def do(self, actor: str, command: cmd.Command) -> list[Logged]:
        """Decide and apply one command; return its logged events."""

        def dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
            return SeededSource(SEED, self.session_id, nonce, client_seed, salt)

        events = decide(self.state, command, Context(actor, dice))
        self.clock += timedelta(minutes=1)
        added = []
        for event in events:
            version = self.state.version + 1
            evolve(self.state, version, event)
            item = Logged(self.next_position, self.session_id, version, self.clock, actor, event)
            self.next_position += 1
            added.append(item)
        self.log.extend(added)
        return added

    def check(self, actor: str, expression: str, target: int, faces: Iterable[int]) -> None:
        """Make a check with typed-in faces."""
        self.do(
            actor,
            cmd.RequestRoll(RollKind.CHECK, expression, target=Target(target), faces=tuple(faces)),
        )

    def last_roll(self) -> int:
        """Return the newest roll's id."""
        return max(self.state.rolls)


def interleave(*scripts: Script) -> list[Logged]:
    """Return the logs of several sessions merged in time order, renumbered 1, 2, 3 ..."""
    merged = sorted(
        (item for s in scripts for item in s.log), key=lambda i: (i.recorded_at, i.position)
    )
    return [
        Logged(n, i.stream_id, i.version, i.recorded_at, i.actor, i.event)
        for n, i in enumerate(merged, start=1)
    ]

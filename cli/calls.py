"""The one seam between the session commands and whoever answers them.

A command asks ``AppContext.calls()`` and gets either the local store's application,
acting as ``--as``, or a server's API, acting as the token `join` kept (cli/remote_calls.py).
Both answer with the types the renderers take, so each command prints one way.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias

from diceledger.domain.receipt import Receipt
from diceledger.domain.session import commands as cmd

if TYPE_CHECKING:
    from diceledger.cli.remote_calls import RemoteRoll
    from diceledger.infra.app.application import Application
    from diceledger.infra.app.results import ExportFileResult, ReplayResult, RollResult

Rolled: TypeAlias = "RollResult | RemoteRoll"  # a roll as its viewer may see it


class SessionCalls(Protocol):
    """What the session commands ask, of a local store or of a server."""

    def request_roll(
        self, session_id: str, command: cmd.RequestRoll | cmd.RequestOpposed
    ) -> Rolled: ...

    def reroll(self, session_id: str, command: cmd.Reroll) -> Rolled: ...

    def roll_side(self, session_id: str, command: cmd.RollSide) -> Rolled: ...

    def accept(self, session_id: str, roll_id: int, faces: tuple[int, ...] | None) -> Rolled: ...

    def reveal_roll(self, session_id: str, roll_id: int) -> Rolled: ...

    def replay(
        self, session_id: str, until_position: int | None, at: datetime | None
    ) -> ReplayResult: ...

    def receipt(self, session_id: str, roll_id: int) -> Receipt: ...

    def export_file(self, session_id: str, output: Path) -> ExportFileResult: ...


class LocalCalls:
    """The calls answered by this machine's store, as ``actor``."""

    def __init__(self, app: Application, actor: str) -> None:
        self._app, self._actor = app, actor

    def request_roll(
        self, session_id: str, command: cmd.RequestRoll | cmd.RequestOpposed
    ) -> Rolled:
        return self._app.request_roll(self._actor, session_id, command)

    def reroll(self, session_id: str, command: cmd.Reroll) -> Rolled:
        return self._app.reroll(self._actor, session_id, command)

    def roll_side(self, session_id: str, command: cmd.RollSide) -> Rolled:
        return self._app.roll_side(self._actor, session_id, command)

    def accept(self, session_id: str, roll_id: int, faces: tuple[int, ...] | None) -> Rolled:
        return self._app.accept(self._actor, session_id, roll_id, faces)

    def reveal_roll(self, session_id: str, roll_id: int) -> Rolled:
        return self._app.reveal_roll(self._actor, session_id, roll_id)

    def replay(
        self, session_id: str, until_position: int | None, at: datetime | None
    ) -> ReplayResult:
        from diceledger.infra.app.results import Moment

        return self._app.replay(self._actor, session_id, Moment(until_position, at))

    def receipt(self, session_id: str, roll_id: int) -> Receipt:
        return self._app.proofs.receipt(self._actor, session_id, roll_id)

    def export_file(self, session_id: str, output: Path) -> ExportFileResult:
        return self._app.export_file(self._actor, session_id, output)

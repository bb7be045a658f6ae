"""A ledger to drive ``diceledger`` through CliRunner on a temporary SQLite file.

Every command runs in-process with ``DICELEDGER_DB`` pointing at a fresh file; the
ledger also opens that file's event store, so a test can read what a command appended
(or check that a refused command appended nothing).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from diceledger.cli.main import cli
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session.state import SessionState
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import SeedVault


@dataclass
class Ledger:
    """Run commands as a named person and look at the store they write to."""

    url: str
    store: SqlEventStore
    vault: SeedVault

    def run(self, actor: str, *args: str, color: bool = False) -> Result:
        """Run ``diceledger --as ACTOR ARGS...`` and return the result, whatever it is."""
        runner = CliRunner(
            env={"DICELEDGER_DB": self.url, "NO_COLOR": "1", "DICELEDGER_USER": None}
        )
        return runner.invoke(cli, ["--as", actor, *args], color=color)

    def ok(self, actor: str, *args: str) -> str:
        """Run a command that must succeed; return what it printed."""
        result = self.run(actor, *args)
        assert result.exit_code == 0, result.output
        assert result.stderr == ""
        return result.stdout

    def export(self, actor: str, session: str, path: Path) -> str:
        """Export a session; an open one's export warns (its seed stays here), and only that."""
        result = self.run(actor, "export", session, "-o", str(path))
        assert result.exit_code == 0, result.output
        warned = result.stderr.strip()
        assert warned == "" or (warned.startswith("warning: ") and "still open" in warned)
        return result.stdout

    def data(self, actor: str, *args: str) -> Any:
        """Run a command with ``--json`` after it; return the one JSON document it printed."""
        out = self.ok(actor, *args, "--json")
        assert len(out.splitlines()) == 1, out
        return json.loads(out)

    def refused(self, actor: str, *args: str) -> str:
        """Run a command that must be refused: one line on stderr, exit 1, nothing appended."""
        before = self.store.head_position()
        result = self.run(actor, *args)
        assert result.exit_code == 1, result.output
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("Error: ")
        assert self.store.head_position() == before
        return lines[0].removeprefix("Error: ")

    def misused(self, actor: str, *args: str) -> str:
        """Run a command with bad usage: exit 2, nothing printed on stdout or appended."""
        before = self.store.head_position()
        result = self.run(actor, *args)
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        assert result.stderr.splitlines()[-1].startswith("Error: ")
        assert self.store.head_position() == before
        return result.stderr

    def events(self, session_id: str) -> list[RecordedEvent]:
        """Return the session's stream as stored."""
        return list(self.store.read_stream(session_id))

    def state(self, session_id: str) -> SessionState:
        """Return the session's state as the service folds it from the store."""
        return SessionService(self.store, self.vault).load(session_id)

    def event_types(self, session_id: str) -> list[str]:
        """Return the types of the session's events, in order."""
        return [record.event_type for record in self.events(session_id)]


@pytest.fixture
def ledger(sqlite_url: str) -> Iterator[Ledger]:
    engine = make_engine(sqlite_url)
    try:
        yield Ledger(sqlite_url, SqlEventStore(engine), SeedVault(engine))
    finally:
        engine.dispose()


@pytest.fixture
def table(ledger: Ledger) -> str:
    """Start a session run by 'gm' that ann and bob have joined; return its id."""
    session_id: str = ledger.data("gm", "session", "start", "Tomb of Ash")["session_id"]
    ledger.ok("ann", "session", "join", session_id, "--client-seed", "ann's lucky words")
    ledger.ok("bob", "session", "join", session_id)
    return session_id

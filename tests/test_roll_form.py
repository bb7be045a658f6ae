"""One roll form behind the CLI, the API and Discord: the same refusals and the same limits.

Each face turns its own input (options, a JSON body, slash-command options) into the one
roll form of infra/app/roll_form.py, so a check the rules refuse is refused in the same
words everywhere, and a limit holds at the same length on every face.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import pytest

from diceledger.domain.errors import DiceledgerError
from diceledger.infra.app.roll_form import MAX_LABEL
from diceledger.infra.bootstrap import bootstrap_server
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import SeedVault
from diceledger.web.discord.answering import refusal
from tests.api.conftest import Api, build_api, open_table
from tests.cli.conftest import Ledger
from tests.discord.conftest import MIRA
from tests.discord.test_turns import Table as DiscordTable


@dataclass(frozen=True)
class Check:
    """A GM's check on 1d20, as every face can ask for it."""

    target: int | None = 10
    dc: int | None = None
    label: str | None = None


class Face(Protocol):
    def check(self, asked: Check) -> str | None:
        """Ask for the check; return the one line of its refusal, or None if it was rolled."""

    def rolls(self) -> int:
        """Return how many rolls the session holds."""


class CliFace:
    def __init__(self, url: str) -> None:
        engine = make_engine(url)
        self.ledger = Ledger(url, SqlEventStore(engine), SeedVault(engine))
        self.sid: str = self.ledger.data("gm", "session", "start", "Tomb")["session_id"]

    def check(self, asked: Check) -> str | None:
        args = ["check", self.sid, "1d20n"]
        args += [] if asked.target is None else ["--target", str(asked.target)]
        args += [] if asked.dc is None else ["--dc", str(asked.dc)]
        args += [] if asked.label is None else ["--label", asked.label]
        result = self.ledger.run("gm", *args)
        if result.exit_code == 0:
            return None
        assert result.exit_code == 1 and result.stdout == "", result.output
        (line,) = result.stderr.splitlines()
        return line.removeprefix("Error: ")

    def rolls(self) -> int:
        return len(self.ledger.data("gm", "session", "show", self.sid)["rolls"])


class ApiFace:
    def __init__(self, api: Api) -> None:
        self.api = api
        self.table = open_table(api)

    def check(self, asked: Check) -> str | None:
        body: dict[str, Any] = {"kind": "check", "expression": "1d20n"}
        for name in ("target", "dc", "label"):
            if getattr(asked, name) is not None:
                body[name] = getattr(asked, name)
        answer = self.api.roll(self.table.sid, self.table.gm, body)
        if answer.status_code == 201:
            return None
        assert answer.status_code == 422, answer.text
        detail: str = answer.json()["detail"]
        return detail

    def rolls(self) -> int:
        session = self.api.get(f"/api/v1/sessions/{self.table.sid}", self.table.gm).json()
        return len(session["rolls"])


class DiscordFace:
    def __init__(self, table: DiscordTable) -> None:
        self.table = table
        started = table.command(MIRA, "start", title="Tomb")
        self.sid = started.message.content.split("(session `", 1)[1].split("`", 1)[0]

    def check(self, asked: Check) -> str | None:
        options: dict[str, Any] = {"expression": "1d20n"}
        if asked.target is not None:
            options["target"] = asked.target
        if asked.dc is not None:
            options["dc"] = str(asked.dc)
        if asked.label is not None:
            options["label"] = asked.label
        try:
            self.table.command(MIRA, "check", **options)
        except DiceledgerError as error:
            said = refusal(error).message.content
            assert said.startswith("Nothing was done: ")
            return said.removeprefix("Nothing was done: ")
        return None

    def rolls(self) -> int:
        return len(self.table.parts.app.session(MIRA.username, self.sid).rolls)


@pytest.fixture(params=["cli", "api", "discord"])
def face(request: pytest.FixtureRequest, sqlite_url: str) -> Iterator[Face]:
    if request.param == "cli":
        yield CliFace(sqlite_url)
    elif request.param == "api":
        api = build_api(sqlite_url)
        try:
            with api.client:
                yield ApiFace(api)
        finally:
            api.services.app.close()
            api.db.dispose()
    else:
        parts = bootstrap_server(sqlite_url)
        try:
            yield DiscordFace(DiscordTable(parts))
        finally:
            parts.app.close()


@pytest.mark.parametrize(
    ("asked", "refused"),
    [
        (Check(target=10, dc=2), "give a target or a dc, not both"),
        (Check(target=None), "a check needs a target or a DC"),
    ],
    ids=["target-and-dc", "no-target"],
)
def test_the_same_bad_check_is_refused_in_the_same_words_on_every_face(
    face: Face, asked: Check, refused: str
) -> None:
    assert face.check(asked) == refused
    assert face.rolls() == 0


def test_a_label_of_the_limit_is_rolled_and_one_longer_refused_on_every_face(
    face: Face,
) -> None:
    assert face.check(Check(label="x" * MAX_LABEL)) is None
    refused = face.check(Check(label="y" * (MAX_LABEL + 1)))
    assert refused is not None and str(MAX_LABEL) in refused
    assert face.rolls() == 1

"""`diceledger serve --db URL`, as the serve issue named it, beside the group's `--db`."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import sqlalchemy as sa
from click.testing import CliRunner

from diceledger.cli.main import cli
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.schema import events
from tests.api.served import running_server


def test_serve_takes_the_store_after_the_command(sqlite_url: str, tmp_path: Path) -> None:
    with running_server(sqlite_url, tmp_path, db_after_serve=True) as server:
        request = urllib.request.Request(
            f"{server.base_url}/api/v1/sessions",
            data=json.dumps({"title": "Tomb of Ash"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            session_id = json.loads(answer.read())["session_id"]
    engine = make_engine(sqlite_url)
    try:
        with engine.connect() as connection:
            streams = connection.scalars(sa.select(events.c.stream_id).distinct()).all()
    finally:
        engine.dispose()
    assert session_id in streams  # the session was opened in the store serve was given


def test_two_different_stores_for_serve_are_refused(tmp_path: Path) -> None:
    one, other = f"sqlite:///{tmp_path / 'one.sqlite'}", f"sqlite:///{tmp_path / 'two.sqlite'}"
    result = CliRunner().invoke(cli, ["--db", one, "serve", "--db", other, "--port", "0"])
    assert result.exit_code == 2
    assert "give it once" in result.output
    assert not (tmp_path / "one.sqlite").exists() and not (tmp_path / "two.sqlite").exists()


def test_serve_db_is_no_demo(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'club.sqlite'}"
    result = CliRunner().invoke(cli, ["serve", "--db", store, "--demo", "--port", "8123"])
    assert result.exit_code == 2 and "not both" in result.output

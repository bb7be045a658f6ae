"""Each browser a witness: a fork or a changed key raises the banner; a rotation does not.

A real server on 127.0.0.1 and a real Chromium. The server is made to lie by replacing
what its live stream reads as the session's latest checkpoint: a checkpoint of the same
size with another root (a fork), or the honest one signed by another key of the same name.
Each test signs with a key file of its own, so that a rotation touches no other test.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from diceledger.cli.main import cli
from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.fingerprint import checkpoint_label
from diceledger.infra.bootstrap import bootstrap_server
from diceledger.infra.ledger.signing import SigningKey, open_keyring
from tests.web.live_server import LiveServer, live_server
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser

BANNER = "this server showed you a different history of this session"


@dataclass
class Table:
    """A GM's browser at the table of a session on a server that signs with its own key."""

    db: str
    key_file: Path
    gm: Person

    @property
    def session_id(self) -> str:
        return self.gm.session_id


@pytest.fixture
def key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "signing.key"
    monkeypatch.setenv("DICELEDGER_SIGNING_KEY", str(path))
    return path


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'witness.sqlite'}"


@pytest.fixture
def server(db: str, key_file: Path) -> Iterator[LiveServer]:
    with live_server(db) as running:
        yield running


def open_table(server: LiveServer, open_browser: OpenBrowser) -> Person:
    gm = Person("mira", open_browser(), server.url)
    start_session(gm)
    return gm


def start_session(gm: Person) -> None:
    """Open a new session from the home page, as its GM, and land on its table."""
    gm.open("/")
    gm.type("#title", "Tomb of Ash")
    gm.type("#name", "mira")
    gm.click("form button[type=submit]")
    gm.until(lambda: "/s/" in gm.driver.current_url, "the table did not open")
    gm.session_id = gm.driver.current_url.split("/s/")[1].split("/")[0]
    gm.wait_log_loaded()


def roll(gm: Person) -> None:
    """Roll 1d6 on the table page and wait for the roll to be drawn."""
    before = len(gm.all("#dice-log > li"))
    gm.fill_roll("effect", "1d6")
    gm.submit_roll()
    gm.until(lambda: len(gm.all("#dice-log > li")) > before, "the roll never showed")


def honest_label(server: LiveServer, session_id: str) -> str:
    signed = server.services.app.proofs.checkpoint(session_id).signed.checkpoint
    return checkpoint_label(signed.size, signed.root)


def shown_label(gm: Person, wanted: str) -> str:
    gm.until(lambda: gm.text("#witness-checkpoint") == wanted, f"the checkpoint {wanted}")
    return gm.text("#witness-checkpoint")


def banner(gm: Person) -> str:
    gm.until(lambda: BANNER in gm.text("#witness-alarm"), "the witness banner")
    return gm.text("#witness-alarm")


def evidence(gm: Person, which: str) -> str:
    href = gm.find(f"#witness-alarm a.evidence-{which}").get_attribute("href") or ""
    prefix = "data:text/plain;charset=utf-8,"
    assert href.startswith(prefix)
    return unquote(href[len(prefix) :])


def lie(server: LiveServer, monkeypatch: pytest.MonkeyPatch, note: str) -> None:
    """Make the live stream show ``note`` as the session's latest signed checkpoint."""
    monkeypatch.setattr(server.services.app.proofs, "latest", lambda session_id: note)


def latest(server: LiveServer, session_id: str) -> Checkpoint:
    return server.services.app.proofs.checkpoint(session_id).signed.checkpoint


def test_an_honest_session_shows_no_banner_and_the_clis_checkpoint_on_every_page(
    server: LiveServer, open_browser: OpenBrowser, db: str
) -> None:
    gm = open_table(server, open_browser)
    roll(gm)
    roll(gm)
    runner = CliRunner(env={"DICELEDGER_DB": db, "NO_COLOR": "1"})
    result = runner.invoke(cli, ["--as", "mira", "checkpoint", gm.session_id, "--json"])
    assert result.exit_code == 0, result.output
    answered = json.loads(result.stdout)
    cli_label = f"#{answered['size']} \u00b7 {answered['words']}"
    assert cli_label == honest_label(server, gm.session_id)
    shown_label(gm, cli_label)  # kept from the live stream, after the last roll
    for page in ("", "/replay", "/stats", "/gm", "/verify"):
        gm.open(f"/s/{gm.session_id}{page}")
        assert shown_label(gm, cli_label) == cli_label
        key = server.services.app.proofs.keys().current
        gm.wait_text("#witness-key", key.key_id.hex())
        assert gm.find("#witness-alarm").is_displayed() is False


def test_a_fork_shown_to_one_browser_raises_the_banner_within_one_update(
    server: LiveServer, open_browser: OpenBrowser, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gm = open_table(server, open_browser)
    roll(gm)
    kept = latest(server, gm.session_id)
    shown_label(gm, checkpoint_label(kept.size, kept.root))
    kept_note = server.services.app.proofs.latest(gm.session_id)
    # The same size, another root, signed by the server's own key: another history.
    other_root = hashlib.sha256(b"another history").digest()
    fork = (
        open_keyring(key_file)
        .current()
        .sign_checkpoint(Checkpoint(kept.origin, kept.size, other_root))
    )
    lie(server, monkeypatch, str(fork))
    roll(gm)  # one update: the stream carries the forked checkpoint
    said = banner(gm)
    assert "roots of the trees" in said
    assert evidence(gm, "kept") == kept_note
    assert evidence(gm, "shown") == str(fork)
    gm.driver.refresh()  # it stays, on every page of the session
    banner(gm)
    gm.open(f"/s/{gm.session_id}/stats")
    assert evidence(gm, "shown") == str(fork) and BANNER in banner(gm)


def test_a_changed_key_raises_the_banner(
    server: LiveServer, open_browser: OpenBrowser, monkeypatch: pytest.MonkeyPatch
) -> None:
    gm = open_table(server, open_browser)
    roll(gm)
    honest = latest(server, gm.session_id)
    shown_label(gm, checkpoint_label(honest.size, honest.root))
    name = server.services.app.proofs.keys().current.name
    stranger = SigningKey.generate(name)  # the same name, another key, vouched for by none
    lie(server, monkeypatch, str(stranger.sign_checkpoint(honest)))
    roll(gm)
    assert "never vouched for" in banner(gm)


def test_a_rotated_key_with_its_chain_is_accepted_and_pinned(
    db: str, key_file: Path, open_browser: OpenBrowser
) -> None:
    with live_server(db) as first:
        port = first.port
        gm = open_table(first, open_browser)
        untouched = gm.session_id  # no event after the rotation: its checkpoint keeps the old key
        start_session(gm)
        roll(gm)
        gm.wait_text("#witness-key", first.services.app.proofs.keys().current.key_id.hex())
    parts = bootstrap_server(db)  # `keys rotate`, run with the server stopped
    try:
        rotation = parts.app.proofs.rotate_key()
    finally:
        parts.app.close()
    with live_server(db, port=port) as again:
        gm.driver.refresh()
        gm.wait_log_loaded()
        roll(gm)  # signed by the new key, which the old one vouched for
        after = latest(again, gm.session_id)
        shown_label(gm, checkpoint_label(after.size, after.root))
        gm.wait_text("#witness-key", rotation.successor.key_id.hex())
        assert rotation.successor.key_id != rotation.retired.key.key_id
        assert BANNER not in gm.text("body")
        # A session signed last by the old key, which vouched for the pinned one, is fine.
        gm.open(f"/s/{untouched}")
        before = latest(again, untouched)
        shown_label(gm, checkpoint_label(before.size, before.root))
        gm.wait_text("#witness-key", rotation.successor.key_id.hex())
        assert BANNER not in gm.text("body")

"""``diceledger serve --demo``: a throw-away store with a session played, and links to open it.

The session is the one ``diceledger demo`` plays, played quietly on a new SQLite file in a
temporary folder (with its own seed key, so nothing in the user's data directory is
touched). Nobody gets a token in a URL: the links carry one-time codes, a sign-in code
for the GM and for a player, and an invite for someone new; each signs in one browser,
once, and the browser keeps its token in an HttpOnly cookie. The folder is removed when
the server stops, by Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import NoReturn

from diceledger.cli.demo import Tour, play

GM = "mira"
PLAYER = "ann"


@dataclass(frozen=True, slots=True)
class DemoTable:
    """The demo's store and the links that sign people in."""

    url: str
    folder: Path
    session_id: str
    title: str
    gm_link: str
    player_link: str
    invite_link: str


def prepare_demo(base_url: str, seed: int = 1) -> DemoTable:
    """Play the demo session on a fresh store; return it with sign-in and invite links."""
    from diceledger.infra.bootstrap import bootstrap_server

    folder = Path(tempfile.mkdtemp(prefix="diceledger-serve-demo-"))
    url = f"sqlite:///{folder / 'demo.sqlite'}"
    os.environ["DICELEDGER_SEED_KEY"] = str(folder / "seed.key")  # the server's workers too
    # The demo's throw-away signing key signs the server's appends too: one key, one tree.
    os.environ["DICELEDGER_SIGNING_KEY"] = str(folder / "signing.key")
    tour = Tour(url, seed, folder)
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        play(tour, folder)
    tour.app.close()
    parts = bootstrap_server(url)
    try:
        access = parts.access
        gm = access.as_owner(tour.session, GM)
        gm_code = access.sign_in_code(gm).code
        player_code = access.sign_in_code(access.as_owner(tour.session, PLAYER)).code
        invite = access.invite(gm).code
        title = parts.app.title(tour.session)
    finally:
        parts.app.close()
    return DemoTable(
        url=url,
        folder=folder,
        session_id=tour.session,
        title=title,
        gm_link=f"{base_url}/sign-in/{gm_code}",
        player_link=f"{base_url}/sign-in/{player_code}",
        invite_link=f"{base_url}/join/{invite}",
    )


def describe(table: DemoTable) -> list[str]:
    """Return the lines that tell a person what to open."""
    links = {
        f"the GM ({GM})": table.gm_link,
        f"a player ({PLAYER})": table.player_link,
        "someone new": table.invite_link,
    }
    width = max(len(label) for label in links)
    return [
        f"demo session '{table.title}' ({table.session_id})",
        f"its throw-away store, removed when the server stops: {table.folder}",
        "open each link in its own browser or private window (each signs in once):",
        *(f"  {label:<{width}}  {link}" for label, link in links.items()),
        "stop the server with Ctrl-C",
    ]


@contextlib.contextmanager
def removed_on_exit(folder: Path) -> Iterator[None]:
    """Remove ``folder`` when the block ends: normally, by Ctrl-C, or by SIGTERM."""
    # SIGTERM's default ends the process at once, past every finally; as an exception
    # it unwinds through this block. The server restores this handler before it returns.
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        shutil.rmtree(folder, ignore_errors=True)


def _terminated(signum: int, _: FrameType | None) -> NoReturn:
    raise SystemExit(128 + signum)

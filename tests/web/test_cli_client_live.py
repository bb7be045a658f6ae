"""A player at a terminal rolls with `diceledger --server`; the GM's open table shows it live."""

from __future__ import annotations

from pathlib import Path

from tests.cli.remote_support import Terminal
from tests.web.conftest import OpenBrowser
from tests.web.live_server import live_server
from tests.web.people import Person
from tests.web.test_live_log import signed_in_gm


def test_the_gms_table_shows_a_roll_made_at_a_terminal_live(
    open_browser: OpenBrowser, tmp_path: Path
) -> None:
    gm = Person("mira", open_browser(), "")
    with live_server(f"sqlite:///{tmp_path / 'table.sqlite'}") as server:
        gm.base = server.url
        session_id = signed_in_gm(server, gm)  # the GM's table is open in Chromium
        access = server.services.access
        code = access.invite(access.as_owner(session_id, "mira")).code
        cara = Terminal(tmp_path / "cara")
        cara.ok("join", f"{server.url}/join/{code}", "--name", "cara")
        at = ("--server", server.url)
        rolled = cara.ok(*at, "check", session_id, "1d20+2", "--target", "12", "--faces", "14")
        assert rolled == "#1 cara check: 1d20 (14) + 2 = 16 vs 12: success\n"
        # No reload: the table hears of the roll on its event stream.
        gm.wait_roll(1, "cara", "1d20", "16")

"""A player follows the stats page's link to the campaign page and reads it in Chromium.

The evenings are played through the application with typed-in dice; ann signs in with a
sign-in link as a second device would, and then only clicks and reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.session import commands as cmd
from tests.web.live_server import live_server
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser


def check(face: int, target: int) -> cmd.RequestRoll:
    return cmd.RequestRoll(RollKind.CHECK, "1d20+1", target=Target(target), faces=(face,))


def test_ann_reads_her_luck_over_two_evenings(open_browser: OpenBrowser, tmp_path: Path) -> None:
    with live_server(f"sqlite:///{tmp_path / 'campaign.sqlite'}") as server:
        app, access = server.services.app, server.services.access
        one = access.open_session("Evening one", "mira").started.session_id
        app.join("ann", one, cmd.JoinSession("ann"))
        campaign = app.campaigns.start("mira", "Ashen Crown", first_session=one)
        app.request_roll("ann", one, check(15, 11))  # won
        app.request_roll("ann", one, check(2, 11))  # lost
        two = app.campaigns.start_session("mira", campaign.campaign_id, "Evening two")
        app.join("ann", two.session_id, cmd.JoinSession("ann"))
        app.request_roll("ann", two.session_id, check(19, 16))  # won
        code = access.sign_in_code(access.as_owner(one, "ann")).code
        ann = Person("ann", open_browser(width=360, height=740), server.url)
        ann.open(f"/sign-in/{code}")
        ann.click("form button[type=submit]")
        ann.until(lambda: f"/s/{one}" in ann.driver.current_url, "the table")
        ann.open(f"/s/{one}/stats")
        ann.click(f'a[href="/s/{one}/campaign"]')
        ann.wait_text("h1", "Campaign: Ashen Crown")
        assert [li.text for li in ann.all(".campaign-sessions li")] == [
            "Evening one (player)",
            "Evening two (player)",
        ]
        figures = ann.text(".player-stats .figures")
        assert "Checks, saves and opposed checks won\n2 of 3" in figures
        assert "Successes expected from the odds\n1.4" in figures
        bars = ann.all('svg[aria-labelledby^="campaign-luck"] rect')
        assert [bar.get_attribute("data-session") for bar in bars] == ["1", "2"]

"""The campaign page over HTTP, without a browser: its figures, its charts, its escaping.

Dice are typed in. The page is reached from a session the browser is signed in to, and
shows the campaign that session belongs to, as the signed-in member may see it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from fastapi.testclient import TestClient

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.web.campaign_charts import ZERO, SessionLuck, luck_per_session
from tests.api.conftest import Api, build_api
from tests.web.test_pages import EVIL, browser, invite_path, join, open_session


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    built = build_api(f"sqlite:///{tmp_path / 'campaign.sqlite'}")
    try:
        with built.client:
            yield built
    finally:
        built.services.app.close()


def check(
    face: int, target: int, blind: bool = False, on_behalf_of: str | None = None
) -> cmd.RequestRoll:
    return cmd.RequestRoll(
        RollKind.CHECK,
        "1d20+1",
        target=Target(target),
        faces=(face,),
        mode=RollMode.BLIND if blind else RollMode.PUBLIC,
        on_behalf_of=on_behalf_of,
    )


def played(api: Api, title: str = "Ashen Crown") -> tuple[TestClient, TestClient, str, str]:
    """Two evenings: ann wins one of two checks, then one of one; browsers of mira and ann."""
    app = api.services.app
    gm = browser(api)
    one = open_session(gm, title="Evening one")
    ann = browser(api)
    join(ann, invite_path(gm, one), "ann")
    campaign = app.campaigns.start("mira", title, first_session=one)
    app.request_roll("ann", one, check(15, 11))
    app.request_roll("ann", one, check(2, 11))
    two = app.campaigns.start_session("mira", campaign.campaign_id, EVIL).session_id
    app.join("ann", two, cmd.JoinSession("ann"))
    app.request_roll("ann", two, check(19, 16))
    app.request_roll("mira", two, check(17, 11, blind=True, on_behalf_of="ann"))
    return gm, ann, one, two


def test_the_campaign_page_sums_the_evenings_and_draws_luck_per_session(api: Api) -> None:
    gm, ann, one, _ = played(api)
    page = ann.get(f"/s/{one}/campaign")
    assert page.status_code == 200, page.text
    text = page.text
    assert "Campaign: Ashen Crown" in text and "ann over the campaign" in text
    assert "<dd>2 of 3</dd>" in text  # the blind roll stays hidden from ann
    assert 'data-session="1"' in text and 'data-session="2"' in text
    assert "ann: luck per session" in text and "ann: luck over the session" in text
    as_gm = gm.get(f"/s/{one}/campaign").text
    assert "<dd>3 of 4</dd>" in as_gm  # a GM of the session sees the blind roll


def test_the_stats_page_links_to_its_campaign(api: Api) -> None:
    _, ann, one, _ = played(api)
    stats = ann.get(f"/s/{one}/stats").text
    assert f'href="/s/{one}/campaign"' in stats


def test_a_hostile_title_is_shown_as_text(api: Api) -> None:
    _, ann, one, _ = played(api, title=EVIL)
    text = ann.get(f"/s/{one}/campaign").text
    assert EVIL not in text
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in text


def test_a_session_in_no_campaign_has_no_campaign_page(api: Api) -> None:
    gm = browser(api)
    alone = open_session(gm, title="Alone")
    answer = gm.get(f"/s/{alone}/campaign")
    assert answer.status_code == 404
    assert "belongs to no campaign" in answer.text


def test_the_luck_per_session_chart_is_well_formed_and_says_it_in_words() -> None:
    chart = luck_per_session(EVIL, [SessionLuck(1, EVIL, 0.5), SessionLuck(2, "Two", -1.25)])
    root = ElementTree.fromstring(chart)
    ns = {"svg": "http://www.w3.org/2000/svg"}
    assert root.findtext("svg:title", namespaces=ns) == f"{EVIL}: luck per session"
    words = root.findtext("svg:desc", namespaces=ns)
    assert (
        words
        == f"Luck of {EVIL}, session by session: session 1 ({EVIL}): 0.5; session 2 (Two): -1.2."
    )
    bars = root.findall("svg:rect", ns)
    assert [bar.get("data-session") for bar in bars] == ["1", "2"]
    up, down = (float(bar.get("y", "0")) for bar in bars)
    assert up < ZERO == down  # luck above the odds rises from the line, below it hangs


def test_the_campaign_page_shows_luck_per_character_as_each_viewer_may_see_it(
    api: Api,
) -> None:
    app = api.services.app
    gm = browser(api)
    one = open_session(gm, title="Evening one")
    ann = browser(api)
    join(ann, invite_path(gm, one), "ann")
    campaign = app.campaigns.start("mira", "Ashen Crown", first_session=one)
    app.change_sheet("ann", one, cmd.CreateCharacter("Thalia", "ann"))
    app.request_roll("ann", one, check(15, 11))  # Thalia: won, expected 0.55
    two = app.campaigns.start_session("mira", campaign.campaign_id, EVIL).session_id
    app.join("ann", two, cmd.JoinSession("ann"))  # Thalia is carried, and played again
    app.request_roll("ann", two, check(2, 11))  # lost, expected 0.55
    app.request_roll("mira", two, check(17, 11, blind=True, on_behalf_of="ann"))
    text = ann.get(f"/s/{one}/campaign").text
    assert "Luck per character" in text
    assert "<td>Evening one</td><td>1 of 1</td><td>0.55</td>" in text
    assert "<td>whole campaign</td><td>1 of 2</td><td>1.10</td>" in text  # blind: hidden
    assert EVIL not in text  # the hostile title of evening two is escaped here too
    as_gm = gm.get(f"/s/{one}/campaign").text
    assert "<td>whole campaign</td><td>2 of 3</td><td>1.65</td>" in as_gm

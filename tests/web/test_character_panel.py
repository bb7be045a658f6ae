"""The table's character panel: the player's own sheet beside the roll bar, saved rolls as
buttons that roll at one press (issue 29)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from diceledger.domain.dice.request import RollKind
from diceledger.domain.session import commands as cmd
from tests.api.conftest import Api, build_api, open_table
from tests.web.live_server import live_server
from tests.web.people import Person
from tests.web.test_accessibility import axe_script, violations

__all__ = ["axe_script"]  # the accessibility test's fixture, used here too

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    built = build_api(f"sqlite:///{tmp_path / 'panel.sqlite'}")
    try:
        with built.client:
            yield built
    finally:
        built.services.app.close()


def page_of(api: Api, sid: str, token: str) -> str:
    api.client.cookies.clear()
    page = api.client.get(f"/s/{sid}", headers={"Authorization": f"Bearer {token}"})
    assert page.status_code == 200, page.text[:300]
    text: str = page.text
    return text


def test_the_table_shows_a_players_own_sheet_and_saved_rolls_and_nothing_without_one(
    api: Api,
) -> None:
    table = open_table(api)
    characters = f"/api/v1/sessions/{table.sid}/characters"
    assert api.post(characters, table.ann, {"name": "Thalia"}).status_code == 201
    body = {"name": "STR", "value": 3, "label": "Strength"}
    assert api.post(f"{characters}/Thalia/attributes", table.ann, body).status_code == 200
    saved = {"name": "Greataxe", "kind": "damage", "expression": "1d12+@STR"}
    assert api.post(f"{characters}/Thalia/saved-rolls", table.ann, saved).status_code == 200
    page = page_of(api, table.sid, table.ann)
    panel = re.search(r'<div class="character-panel".*?</div>', page, flags=re.S)
    assert panel is not None
    words = " ".join(re.sub(r"<[^>]+>", "", panel.group(0)).split())
    assert "Thalia" in words and "STR +3" in words
    assert 'data-saved="Greataxe"' in panel.group(0)
    assert 'class="character-panel"' not in page_of(api, table.sid, table.bob)


def test_a_player_rolls_a_saved_roll_with_one_press(
    driver: WebDriver, tmp_path: Path, axe_script: str
) -> None:
    with live_server(f"sqlite:///{tmp_path / 'press.sqlite'}") as server:
        access, app = server.services.access, server.services.app
        opened = access.open_session("Tomb of Ash", "mira")
        sid = opened.started.session_id
        code = access.invite(access.authenticate(opened.gm_token)).code
        ann = Person("ann", driver, server.url)
        ann.join(f"{server.url}/join/{code}")
        # The GM keeps ann's sheet for her: a GM may change any character.
        app.change_sheet("mira", sid, cmd.CreateCharacter("Thalia", "ann"))
        app.change_sheet("mira", sid, cmd.SetAttribute("Thalia", "STR", 3))
        greataxe = cmd.SaveRoll("Thalia", "Greataxe", RollKind.DAMAGE, "1d12+@STR")
        app.change_sheet("mira", sid, greataxe)
        longsword = cmd.SaveRoll("Thalia", "Longsword", RollKind.CHECK, "1d20+@STR")
        app.change_sheet("mira", sid, longsword)
        ann.open(f"/s/{sid}")
        ann.wait_log_loaded()
        assert "STR +3" in ann.text("#character-panel")
        assert violations(ann, axe_script) == []
        ann.click(".saved-roll[data-saved='Greataxe']")
        text = ann.wait_roll(1, "Greataxe")
        assert "3[STR]" in text, text
        # A saved check takes the target from the form, and says so when it is missing.
        ann.click(".saved-roll[data-saved='Longsword']")
        ann.until(lambda: "give its target first" in ann.text(".roll-form"), "no target asked for")
        ann.type("#roll-target", "12")
        ann.click(".saved-roll[data-saved='Longsword']")
        ann.wait_roll(2, "Longsword", "vs 12")
        request = app.roll("ann", sid, 2).view
        assert request["kind"] == "check"
        # The dice field takes @NAME too; the odds preview says it cannot price it, no error.
        ann.fill_roll("effect", "1d6+@STR")
        ann.until(lambda: "reads the sheet" in ann.text("#roll-odds"), "no word on the odds")
        ann.submit_roll()
        ann.wait_roll(3, "3[STR]")


def test_the_gm_panel_review_names_each_sheet_value_a_disputed_roll_read(api: Api) -> None:
    table = open_table(api)
    characters = f"/api/v1/sessions/{table.sid}/characters"
    assert api.post(characters, table.ann, {"name": "Thalia"}).status_code == 201
    body = {"name": "STR", "value": 3}
    assert api.post(f"{characters}/Thalia/attributes", table.ann, body).status_code == 200
    roll = {"kind": "effect", "expression": "1d20+@STR", "faces": [4]}
    assert api.roll(table.sid, table.ann, roll).status_code == 201
    dispute = f"/api/v1/sessions/{table.sid}/rolls/1/dispute"
    assert api.post(dispute, table.bob, {"reason": "your STR is +1"}).status_code == 201
    api.client.cookies.clear()
    panel = api.client.get(f"/s/{table.sid}/gm", headers={"Authorization": f"Bearer {table.gm}"})
    assert panel.status_code == 200
    sheet = re.search(r'<ul class="review-sheet">.*?</ul>', panel.text, flags=re.S)
    assert sheet is not None
    words = " ".join(re.sub(r"<[^>]+>", "", sheet.group(0)).split())
    assert "Thalia @STR +3: set at version" in words and "by ann (AttributeSet)" in words

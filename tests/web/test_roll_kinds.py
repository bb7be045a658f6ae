"""One name for each kind of roll, the rules' own (R11: check, save, damage, effect rolls).

The command line, the table page's form and log, and Discord's commands and messages all
call a roll of kind effect "effect".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from diceledger.domain.dice.request import RollKind
from diceledger.infra.app.discord_commands import definitions
from tests.api.conftest import Api, build_api, open_table
from tests.web.browser import run_module

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

KINDS = {kind.value for kind in RollKind}


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    built = build_api(f"sqlite:///{tmp_path / 'kinds.sqlite'}")
    try:
        with built.client:
            yield built
    finally:
        built.services.app.close()


def kind_choices(subcommand: str) -> list[str]:
    (dl,) = definitions()
    options = dl["options"]
    assert isinstance(options, list)
    (found,) = [o for o in options if isinstance(o, dict) and o["name"] == subcommand]
    fields = found["options"]
    assert isinstance(fields, list)
    (kind,) = [f for f in fields if isinstance(f, dict) and f["name"] == "kind"]
    choices = kind["choices"]
    assert isinstance(choices, list)
    return [str(c["value"]) for c in choices if isinstance(c, dict)]


def test_discord_offers_the_kinds_by_their_rules_names() -> None:
    assert set(kind_choices("roll")) == {"effect", "damage"}
    assert set(kind_choices("blind")) <= KINDS and "effect" in kind_choices("blind")


def test_the_table_page_offers_the_kinds_by_their_rules_names(api: Api) -> None:
    table = open_table(api)
    api.client.cookies.clear()
    page = api.client.get(f"/s/{table.sid}", headers={"Authorization": f"Bearer {table.ann}"})
    select = re.search(r'<select id="roll-kind".*?</select>', page.text, flags=re.S)
    assert select is not None, page.text[:500]
    values = re.findall(r'<option value="([^"]+)">([^<]+)</option>', select.group(0))
    assert {value for value, _ in values} <= KINDS
    assert ("effect", "Effect") in values


@pytest.fixture
def effect_view(api: Api) -> Iterator[object]:
    table = open_table(api)
    body = {"kind": "effect", "expression": "1d6+1", "label": "torch"}
    assert api.roll(table.sid, table.ann, body).status_code == 201
    yield api.get(f"/api/v1/sessions/{table.sid}/rolls/1", table.ann).json()


def test_the_log_names_an_effect_roll_as_the_cli_does(
    shared_driver: WebDriver, static_site: str, effect_view: object
) -> None:
    shared_driver.get(static_site + "verify.html")
    body = "return m.renderRoll(args[0], {viewer: 'ann', isGm: false}).textContent;"
    text = run_module(shared_driver, static_site + "dice-view.js", body, effect_view)
    assert isinstance(text, str) and "#1 ann effect (torch)" in text, text

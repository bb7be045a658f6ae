"""The dice log's styles: counted and discarded dice differ without colour, from 360 px up.

The page under test is the markup documented at the top of table.css, so the example a
template author copies is the one proven here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from diceledger.web.static_files import STATIC_DIR
from tests.web.browser import copy_static, serve_folder
from tests.web.conftest import OpenBrowser

STYLE = """
const style = (selector) => getComputedStyle(document.querySelector(selector));
const look = (selector) => ({
  weight: Number(style(selector).fontWeight),
  line: style(selector).textDecorationLine,
  border: getComputedStyle(document.querySelector(selector).closest(".die")).borderTopStyle,
});
return {
  counted: look(".die.counted .face"),
  discarded: look(".die.discarded .face"),
  pageWidth: document.documentElement.scrollWidth,
  viewport: window.innerWidth,
};
"""


def documented_markup() -> str:
    css = (STATIC_DIR / "table.css").read_text(encoding="utf-8")
    found = re.search(r'<ol class="dice-log">.*?</ol>', css, flags=re.S)
    assert found is not None, "table.css no longer documents the dice log's markup"
    return found.group(0)


def write_page(folder: Path, styled: bool) -> None:
    link = '<link rel="stylesheet" href="static/table.css">' if styled else ""
    page = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dice log</title>{link}</head>
<body><main class="page"><h1>Tomb of Ash</h1>{documented_markup()}</main></body></html>"""
    (folder / "log.html").write_text(page, encoding="utf-8")


@pytest.mark.parametrize("width", [360, 1280])
def test_counted_and_discarded_dice_differ_in_weight_strike_and_border(
    open_browser: OpenBrowser, tmp_path: Path, width: int
) -> None:
    copy_static(tmp_path)
    write_page(tmp_path, styled=True)
    driver = open_browser(width=width)
    with serve_folder(tmp_path) as url:
        driver.get(url + "log.html")
        looks = driver.execute_script(STYLE)
    counted, discarded = looks["counted"], looks["discarded"]
    assert counted["weight"] >= 700 and discarded["weight"] <= 400
    assert "line-through" in discarded["line"] and "line-through" not in counted["line"]
    assert (counted["border"], discarded["border"]) == ("solid", "dashed")
    assert looks["viewport"] == width and looks["pageWidth"] <= width


def test_without_the_stylesheet_the_markup_still_tells_the_dice_apart(
    open_browser: OpenBrowser, tmp_path: Path
) -> None:
    write_page(tmp_path, styled=False)
    driver = open_browser(width=360)
    with serve_folder(tmp_path) as url:
        driver.get(url + "log.html")
        looks = driver.execute_script(STYLE)
        text = driver.find_element(By.CLASS_NAME, "dice-log").text
    assert looks["counted"]["weight"] >= 700
    assert "line-through" in looks["discarded"]["line"]
    assert "discarded" in text and "typed in" in text

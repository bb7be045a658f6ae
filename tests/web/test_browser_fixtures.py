"""The browser fixtures: pages load over 127.0.0.1, and separate browsers share nothing."""

from __future__ import annotations

from pathlib import Path

from selenium.webdriver.common.by import By

from tests.web.browser import serve_folder
from tests.web.conftest import OpenBrowser

PAGE = """<!doctype html><html lang="en"><meta charset="utf-8"><title>hello</title>
<p id="greeting">Hello, table</p>
<p id="cookie"></p>
<script>document.getElementById("cookie").textContent = document.cookie || "no cookie";</script>
"""


def test_a_served_folder_is_read_by_the_browser(open_browser: OpenBrowser, tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(PAGE, encoding="utf-8")
    driver = open_browser()
    with serve_folder(tmp_path) as url:
        assert url.startswith("http://127.0.0.1:")
        driver.get(url + "index.html")
        assert driver.find_element(By.ID, "greeting").text == "Hello, table"


def test_each_browser_keeps_its_own_cookies(open_browser: OpenBrowser, tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(PAGE, encoding="utf-8")
    gm, player = open_browser(), open_browser(width=360)
    with serve_folder(tmp_path) as url:
        gm.get(url + "index.html")
        gm.add_cookie({"name": "who", "value": "gm"})
        gm.get(url + "index.html")
        player.get(url + "index.html")
        assert gm.find_element(By.ID, "cookie").text == "who=gm"
        assert player.find_element(By.ID, "cookie").text == "no cookie"
        assert player.execute_script("return window.innerWidth") == 360

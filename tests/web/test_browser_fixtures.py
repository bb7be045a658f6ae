"""The browser fixtures: served pages load, browsers stay apart, and CI never skips them."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from tests.web import browser
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


@pytest.mark.parametrize(
    ("value", "required"),
    [("true", True), ("1", True), ("yes", True), ("", False), ("false", False), ("0", False)],
)
def test_ci_makes_a_missing_browser_fail_rather_than_skip(
    monkeypatch: pytest.MonkeyPatch, value: str, required: bool
) -> None:
    monkeypatch.setenv("CI", value)
    assert browser.browser_required() is required


def test_without_ci_set_a_missing_browser_only_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert browser.browser_required() is False


def test_a_missing_browser_is_named_with_the_packages_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(browser, "CHROMIUM", tmp_path / "chromium")
    reason = browser.missing_browser()
    assert reason is not None
    assert str(tmp_path / "chromium") in reason and "chromium-driver" in reason

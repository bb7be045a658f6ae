"""A player's export with a hidden blind roll, in the browser: sealed lines, never "verified".

The played session holds a blind roll the GM never reveals; the player's export carries
its events sealed. The browser must give the command line's verdict and counts, and name
the sealed roll as "sealed, not checked" rather than verified.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from selenium.webdriver.common.by import By

from tests.web.sessions import Cli, play_session
from tests.web.test_verify_page import SAME_COUNTS, browser_report, command_line_report, verdict

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver


@pytest.fixture(scope="module")
def sealed_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a player's export of the played session after its end."""
    folder = tmp_path_factory.mktemp("sealed")
    played = play_session(folder)
    path = folder / "bob.jsonl"
    Cli(f"sqlite:///{folder / 'table.sqlite'}").run(
        "bob", "export", played.session_id, "-o", str(path)
    )
    return path


@pytest.fixture(scope="module")
def page(shared_driver: WebDriver, verifier_site: str) -> tuple[WebDriver, str]:
    shared_driver.get(verifier_site + "verify.html")
    return shared_driver, verifier_site


def test_the_browser_gives_the_command_lines_verdict_on_a_sealed_export(
    page: tuple[WebDriver, str], sealed_export: Path
) -> None:
    expected: dict[str, Any] = command_line_report(sealed_export)
    assert expected["ok"] is True and len(expected["sealed_rolls"]) == 1
    report = browser_report(page, sealed_export)
    keys = (*SAME_COUNTS, "sealed_rolls", "sealed_events")
    assert {key: report[key] for key in keys} == {key: expected[key] for key in keys}


def test_the_page_says_sealed_not_checked_for_the_hidden_roll(
    driver: WebDriver, verifier_site: str, sealed_export: Path
) -> None:
    roll_id = command_line_report(sealed_export)["sealed_rolls"][0]
    driver.get(verifier_site + "verify.html")
    driver.find_element(By.ID, "export-file").send_keys(str(sealed_export))
    driver.find_element(By.CSS_SELECTOR, "#verify-form button[type=submit]").click()
    text = verdict(driver)
    heading = driver.find_element(By.CSS_SELECTOR, "#verify-result h2").text
    assert heading != "\u2714 Verified in this browser"
    assert "sealed, not checked" in heading
    assert f"Roll {roll_id}: sealed, not checked" in text

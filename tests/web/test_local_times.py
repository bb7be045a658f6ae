"""The pages show a time as the command line does: the reader's zone, named, to the minute."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import pytest

from tests.web.browser import run_module

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

ZONE = "America/New_York"  # named alike by Python and the browser (EST, EDT)


@pytest.fixture(scope="module")
def page(shared_driver: WebDriver, static_site: str) -> Iterator[tuple[WebDriver, str]]:
    shared_driver.get(static_site + "verify.html")
    shared_driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ZONE})
    try:
        yield shared_driver, static_site
    finally:
        shared_driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})


@pytest.mark.parametrize("utc", ["2026-12-08T17:06:22.720915Z", "2026-07-01T03:59:59Z"])
def test_a_time_is_shown_in_the_readers_zone_to_the_minute(
    page: tuple[WebDriver, str], utc: str
) -> None:
    driver, base = page
    shown = run_module(driver, base + "times.js", "return m.localTime(args[0]);", utc)
    there = datetime.fromisoformat(utc).astimezone(ZoneInfo(ZONE))
    assert shown == there.strftime("%Y-%m-%d %H:%M ") + str(there.tzname())

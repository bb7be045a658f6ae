"""Browsers for page tests: one driver, or several independent ones (a GM and players).

Each browser is a headless Chromium with its own fresh profile, so cookies and storage
never leak from one to another. Without a browser the tests that ask for one skip, naming
what is missing, except in CI (``CI`` set), where that fails the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from diceledger.web.static_files import STATIC_DIR
from tests.web.browser import (
    browser_required,
    link_static,
    missing_browser,
    serve_folder,
    start_chromium,
)
from tests.web.live_server import LiveServer, live_server

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

OpenBrowser = Callable[..., "WebDriver"]
# The verify page's Python runtime, installed by .ci/install-pyodide (git-ignored).
PYODIDE_INSTALLED = STATIC_DIR / "pyodide" / "installed"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if {"driver", "open_browser", "shared_driver"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_available() -> None:
    """Skip (or, in CI, fail) the test when no browser can be driven."""
    reason = missing_browser()
    if reason is None:
        return
    if browser_required():
        pytest.fail(f"CI needs the browser tests to run: {reason}")
    pytest.skip(reason)


@pytest.fixture
def open_browser(browser_available: None, tmp_path: Path) -> Iterator[OpenBrowser]:
    """Yield a function that starts one more independent browser; all quit at the end.

    ``open_browser(width=360)`` starts a phone-sized window.
    """
    drivers: list[WebDriver] = []

    def open_one(width: int = 1280, height: int = 900) -> WebDriver:
        profile = tmp_path / f"browser-profile-{len(drivers)}"
        profile.mkdir()
        drivers.append(start_chromium(profile, width, height))
        return drivers[-1]

    try:
        yield open_one
    finally:
        for driver in drivers:
            driver.quit()


@pytest.fixture
def driver(open_browser: OpenBrowser) -> WebDriver:
    """Return a ready headless browser of desktop size."""
    return open_browser()


@pytest.fixture(scope="module")
def shared_driver(
    browser_available: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WebDriver]:
    """Yield one browser for a whole module, for tests that only run scripts in a page."""
    driver = start_chromium(tmp_path_factory.mktemp("browser-profile"))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def static_site() -> Iterator[str]:
    """Serve the package's static files on 127.0.0.1; yield the base URL (ending in /)."""
    with serve_folder(STATIC_DIR) as url:
        yield url


@pytest.fixture(scope="session")
def pyodide_available(browser_available: None) -> None:
    """Skip (or, in CI, fail) the test when Pyodide is not installed for the verify page."""
    if PYODIDE_INSTALLED.exists():
        return
    reason = "Pyodide is not installed for the verify page (run .ci/install-pyodide)"
    if browser_required():
        pytest.fail(f"CI needs the in-browser verify tests to run: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def verifier_site(
    pyodide_available: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """Serve the static files and the verifier's modules as the server does; yield the URL."""
    static = link_static(tmp_path_factory.mktemp("verifier-site"))
    with serve_folder(static) as url:
        yield url


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server of the app on a SQLite file of the test's own, stopped after the test."""
    with live_server(f"sqlite:///{tmp_path / 'table.sqlite'}") as running:
        yield running

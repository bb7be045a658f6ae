"""A headless Debian Chromium driven by Selenium, and a folder served on 127.0.0.1.

The browser is the one from the Debian packages ``chromium`` and ``chromium-driver``
(``.ci/install-browser`` installs them). Selenium is pointed at both binaries, so it never
looks for a driver of its own or asks the network for one.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diceledger.web.static_files import STATIC_DIR
from diceledger.web.verifier_bundle import bundle

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

# Headless as root needs --no-sandbox. The machine may have no internet: without the
# networking switches, Chromium keeps trying to reach Google's services, and every refused
# connection is noise (and time) in a test run.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
)


def browser_required() -> bool:
    """Tell whether a missing browser must fail the run (in CI) rather than skip its tests."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing_browser() -> str | None:
    """Return why no browser can be driven here, or None when one can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    absent = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if absent:
        return (
            f"no browser: {' and '.join(absent)} missing (install the Debian packages "
            "chromium and chromium-driver; `make test` does so when run as root)"
        )
    return None


def start_chromium(profile: Path, width: int = 1280, height: int = 900) -> WebDriver:
    """Start a headless Chromium with a fresh profile in ``profile`` and return its driver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    service = Service(executable_path=str(CHROMEDRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_script_timeout(60)
    # A headless window is at least 500 px wide; emulating the viewport gives a phone's 360.
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    return driver


def run_module(driver: WebDriver, url: str, body: str, *args: object) -> Any:
    """Import the ES module at ``url`` as ``m`` in the open page and run ``body`` with it.

    ``body`` is the text of an async function body that sees ``m`` and ``args`` (the extra
    arguments, passed as JSON); what it returns comes back as Python data. A thrown error
    comes back as ``{"thrown": message}``.
    """
    script = (
        "const done = arguments[arguments.length - 1];"
        "const args = Array.from(arguments).slice(1, -1);"
        f"import(arguments[0]).then(async (m) => {{ {body} }})"
        ".then(done, (error) => done({thrown: String(error?.message ?? error)}));"
    )
    return driver.execute_async_script(script, url, *args)


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serve files without writing a log line per request into the test output."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        # Each test reads the files as they are now, never a copy cached by an earlier test.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


@contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """Serve ``folder`` over HTTP on 127.0.0.1 (a free port) until the block ends.

    Yields the base URL, ending in a slash.
    """
    handler = partial(_QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="static-files", daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def link_static(target: Path) -> Path:
    """Lay out ``target/static`` as the server serves /static/, for the verify page.

    The static folder's entries are linked, not copied (Pyodide is 13 MB); the zip of
    Python modules the server builds at /static/diceledger-verify.zip is written beside.
    """
    static = target / "static"
    static.mkdir()
    for entry in STATIC_DIR.iterdir():
        (static / entry.name).symlink_to(entry)
    (static / "diceledger-verify.zip").write_bytes(bundle())
    return static


def copy_static(target: Path) -> Path:
    """Copy the static files to ``target/static``, so that a test's own pages sit beside it."""
    return Path(shutil.copytree(STATIC_DIR, target / "static"))

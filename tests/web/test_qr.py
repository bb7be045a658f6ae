"""The page's QR codes read back as their links, in a real QR reader.

web/static/qr.js draws invite and sign-in links as QR codes without sending them anywhere.
Its oracle is the zxing-cpp reader (a test dependency, the decoder of many phone apps):
every symbol the page draws, with the mask it picks and with each mask forced, reads back
as exactly its text at level M, and the version is the smallest whose byte capacity at
level M (ISO/IEC 18004, table 7) holds the text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest
import zxingcpp
from selenium.webdriver.common.by import By

from tests.web.browser import run_module
from tests.web.live_server import LiveServer
from tests.web.people import Person
from tests.web.test_gm_panel_live import invite, open_session

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

    from tests.web.conftest import OpenBrowser

Page = tuple["WebDriver", str]
# Bytes a symbol holds in byte mode at level M, versions 1 to 10.
CAPACITY = (14, 26, 42, 62, 84, 106, 122, 152, 180, 213)
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;=%"
PIXELS = 3  # per module: a crisp picture, as a phone's camera sees a screen
QUIET = 4  # modules of light margin
QR_ONLY = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)


@pytest.fixture(scope="module")
def page(shared_driver: WebDriver, static_site: str) -> Iterator[Page]:
    shared_driver.get(static_site + "verify.html")  # any page of the origin will do
    yield shared_driver, static_site


@dataclass(frozen=True)
class Drawn:
    """A symbol as qr.js draws it: its version, mask and rows of dark (1) and light (0)."""

    version: int
    mask: int
    dark: list[list[int]]


def drawn(page: Page, texts: list[str], mask: int | None = None) -> list[Drawn | None]:
    driver, base = page
    body = """
    return args[0].map((text) => {
      const s = m.qrSymbol(text, args[1]);
      return s === null ? null : [s.version, s.mask, s.dark];
    });
    """
    answer = run_module(driver, base + "qr.js", body, texts, mask)
    return [None if one is None else Drawn(*one) for one in answer]


def drawn_one(page: Page, text: str, mask: int | None = None) -> Drawn:
    (symbol,) = drawn(page, [text], mask)
    assert symbol is not None, text
    return symbol


def read(dark: list[list[int]]) -> list[tuple[str, str]]:
    """Return the text and error correction level of every QR code a reader finds."""
    side = (len(dark) + 2 * QUIET) * PIXELS
    pixels = bytearray(b"\xff") * (side * side)
    for r, row in enumerate(dark):
        for c, module in enumerate(row):
            if module:
                for dy in range(PIXELS):
                    at = ((r + QUIET) * PIXELS + dy) * side + (c + QUIET) * PIXELS
                    pixels[at : at + PIXELS] = b"\x00" * PIXELS
    # The view borrows the pixels: they must outlive the read.
    view = zxingcpp.ImageView(memoryview(pixels), side, side, zxingcpp.ImageFormat.Lum)
    found = zxingcpp.read_barcodes(view, formats=QR_ONLY, is_pure=True)
    return [(code.text, str(code.ec_level)) for code in found]


def links(count: int, seed: int) -> list[str]:
    """Return texts of every length up to what version 10 holds, in a fixed order."""
    rng = random.Random(seed)
    texts = ["https://dice.example.org/join/dlj_4f2a9c", "x", "é — ünïcode ✓"]
    texts += ["a" * size for size in CAPACITY] + ["b" * (size + 1) for size in CAPACITY[:-1]]
    while len(texts) < count:
        length = rng.randint(1, CAPACITY[-1])
        texts.append("".join(rng.choice(ALPHABET) for _ in range(length)))
    return texts


def smallest_version(text: str) -> int:
    size = len(text.encode("utf-8"))
    return next(version for version, holds in enumerate(CAPACITY, 1) if size <= holds)


def test_each_symbol_reads_back_as_its_text_in_the_smallest_version(page: Page) -> None:
    versions = set()
    for text in links(60, seed=18004):
        symbol = drawn_one(page, text)
        assert symbol.version == smallest_version(text), text
        assert read(symbol.dark) == [(text, "M")], f"{len(text.encode())} bytes: {text!r}"
        versions.add(symbol.version)
    assert versions == set(range(1, 11))


@pytest.mark.parametrize("mask", range(8))
def test_each_mask_forced_reads_back(page: Page, mask: int) -> None:
    for text in links(16, seed=mask):
        symbol = drawn_one(page, text, mask)
        assert symbol.mask == mask
        assert read(symbol.dark) == [(text, "M")], f"mask {mask}, {text!r}"


def test_a_text_longer_than_version_10_holds_gets_no_code(page: Page) -> None:
    fits, too_long = "a" * CAPACITY[-1], "a" * (CAPACITY[-1] + 1)
    assert drawn_one(page, fits).version == 10
    assert drawn(page, [too_long]) == [None]


MODULE = re.compile(r"M(\d+) (\d+)h1v1h-1z")


def modules_of(person: Person, selector: str) -> list[list[int]]:
    """Return the dark modules of the QR code drawn at ``selector``, read from its SVG."""
    code = person.find(selector)
    side = int(str(code.get_dom_attribute("viewBox")).split()[2]) - 2 * QUIET
    dark = [[0] * side for _ in range(side)]
    path = str(code.find_element(By.TAG_NAME, "path").get_dom_attribute("d"))
    for x, y in MODULE.findall(path):
        dark[int(y) - QUIET][int(x) - QUIET] = 1
    return dark


def test_a_player_joins_by_the_qr_code_of_the_gm_invite(
    open_browser: OpenBrowser, server: LiveServer
) -> None:
    gm = Person("mira", open_browser(width=1280, height=800), server.url)
    open_session(gm)
    gm.open(f"/s/{gm.session_id}/gm")
    link = invite(gm)
    gm.click("#invite-links details.qr > summary")
    scanned = read(modules_of(gm, "#invite-links svg.qr-code"))
    assert scanned == [(link, "M")]
    label = str(gm.find("#invite-links svg.qr-code").get_dom_attribute("aria-label"))
    assert label.startswith("QR code of the link: Invite link")

    phone = Person("ann", open_browser(width=360, height=740), server.url)
    phone.join(scanned[0][0])
    assert "Signed in as ann" in phone.text(".signed-in")

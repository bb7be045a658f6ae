"""The dice a roller presses to reroll read as they are shown, on a phone and a desktop.

A die button squeezed narrower than its text broke "d6 4" into "d / 6 4" and the pressed
die's "✓ chosen" into "✓chos / en". Measured in the page: no text of a button is broken
across lines, the button is one line tall, and its text fits inside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.keys import Keys

from tests.web.conftest import OpenBrowser
from tests.web.live_server import LiveServer, live_server
from tests.web.people import Person

# For each die button: how many distinct lines its text takes, and whether it overflows.
MEASURE = """
return Array.from(document.querySelectorAll(arguments[0]), (button) => {
  // A text node laid out on one line has one box; broken across lines, one box per line.
  const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
  const broken = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (range.getClientRects().length !== 1) broken.push(node.textContent);
  }
  const style = getComputedStyle(button);
  const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
  const oneLine = Math.max(parseFloat(style.minHeight), parseFloat(style.lineHeight) + padding);
  return {
    broken: broken,
    overflows: button.scrollWidth > button.clientWidth,
    taller: button.getBoundingClientRect().height > oneLine + 1,
    after: getComputedStyle(button, "::after").content,
  };
});
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("picks")
    with live_server(f"sqlite:///{folder / 'picks.sqlite'}") as served:
        yield served


def measure(person: Person, selector: str) -> list[dict[str, object]]:
    found = person.driver.execute_script(MEASURE, selector)
    assert isinstance(found, list) and found, f"no {selector} on the page"
    return found


def assert_one_line_each(picks: list[dict[str, object]]) -> None:
    for pick in picks:
        assert pick["broken"] == [], pick
        assert pick["overflows"] is False and pick["taller"] is False, pick


@pytest.mark.parametrize("width", [360, 1280])
def test_the_dice_to_reroll_read_on_one_line_pressed_or_not(
    open_browser: OpenBrowser, server: LiveServer, width: int, tmp_path: Path
) -> None:
    gm = Person("mira", open_browser(width=width, height=800), server.url)
    gm.open("/")
    gm.type("#title", "Tomb of Ash")
    gm.type("#name", "Gwendolyn-the-long-named")
    gm.click("form button[type=submit]")
    gm.until(lambda: "/s/" in gm.driver.current_url)
    gm.wait_log_loaded()
    # Typed-in faces: no explosion (no 6), so each die is a button of its own.
    gm.fill_roll("damage", "3d6+2", reroll="1", reroll_scope="damage", faces="4, 3, 5")
    gm.submit_roll()
    gm.wait_roll(1, "1 reroll left")
    picks = gm.all("#roll-1 .die-pick")
    assert len(picks) == 3
    assert_one_line_each(measure(gm, "#roll-1 .die-pick"))
    picks[0].send_keys(Keys.SPACE)
    gm.until(lambda: picks[0].get_attribute("aria-pressed") == "true", "the die to be pressed")
    pressed = measure(gm, '#roll-1 .die-pick[aria-pressed="true"]')
    assert "chosen" in str(pressed[0]["after"])
    assert_one_line_each(pressed)

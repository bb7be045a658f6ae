"""A member's last rolls as one-tap buttons, at 360×740 and 1280×800: one press rolls the
same request again (with the server's dice, not the faces typed the first time), the same
roll moves up rather than twice, the buttons outlast a reload, and their words fit them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.web.live_server import LiveServer, invite_link
from tests.web.people import Person
from tests.web.test_phone_table import on_screen

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser

SIZES = [(360, 740), (1280, 800)]
# How many lines the words of each recent roll take.
LINES = """
return Array.from(document.querySelectorAll(".recent-roll"), (button) => {
  const range = document.createRange();
  range.selectNodeContents(button);
  const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
  return tops.size;
});
"""


def buttons(person: Person) -> list[str]:
    return [str(b.get_attribute("aria-label")) for b in person.all(".recent-roll")]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_recent_roll_is_one_tap_again_with_fresh_dice(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    ann.join(invite_link(server))
    assert not ann.find("#recent-rolls").is_displayed()  # nothing rolled yet

    ann.fill_roll("check", "1d20+2", target="12", label="Perception", faces="17")
    ann.submit_roll()
    assert "typed in" in ann.wait_roll(1, "Perception", "vs 12")
    perception = "Roll again: Perception: check 1d20+2 vs 12"
    ann.until(lambda: buttons(ann) == [perception], "one button for the check")
    assert ann.driver.execute_script(LINES) == [1]  # its words on one line

    ann.click(".recent-roll")  # one press: the same check, the server's dice this time
    second = ann.wait_roll(2, "Perception", "vs 12")
    assert "typed in" not in second
    assert on_screen(ann, "#roll-2"), "the new roll is in view"

    ann.fill_roll("damage", "2d6+1")
    ann.submit_roll()
    ann.wait_roll(3, "damage")
    ann.until(lambda: buttons(ann) == ["Roll again: damage 2d6+1", perception], "newest first")
    ann.find(".recent-roll:nth-child(2)").click()
    ann.wait_roll(4, "Perception")
    # Rolled again from its button, the check is not kept twice.
    assert buttons(ann) == ["Roll again: damage 2d6+1", perception]

    ann.open(f"/s/{ann.session_id}")
    ann.wait_log_loaded()
    assert buttons(ann) == ["Roll again: damage 2d6+1", perception]
    assert ann.driver.execute_script(LINES) == [1, 1]


def test_recent_rolls_stop_when_the_session_ends(
    open_browser: OpenBrowser, server: LiveServer
) -> None:
    ann = Person("ann", open_browser(width=360, height=740), server.url)
    ann.join(invite_link(server))
    ann.fill_roll("effect", "1d6")
    ann.submit_roll()
    ann.wait_roll(1, "effect")
    ann.until(lambda: buttons(ann) == ["Roll again: effect 1d6"], "the button")
    server.services.app.end_session("mira", ann.session_id)  # the GM ends it elsewhere
    ann.until(lambda: not ann.find(".recent-roll").is_enabled(), "the button to be disabled")

"""The table as a phone (360×740) and a desktop (1280×800) show it: the roll bar, the Roll
button and the newest roll on the first screen, a first roll from an invite in at most three
actions after joining, and every error of a form at once, beside its field, with the focus
moved there and the error gone once fixed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from selenium.webdriver.common.keys import Keys

from tests.web.live_server import LiveServer, invite_link
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser

SIZES = [(360, 740), (1280, 800)]
# Whether an element lies wholly on the screen as it is now scrolled.
ON_SCREEN = """
const box = document.querySelector(arguments[0]).getBoundingClientRect();
return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
"""

# Where each of some elements lies, top to bottom, to say why a check of ON_SCREEN failed.
PLACES = """
return arguments[0].map((s) => {
  const box = document.querySelector(s).getBoundingClientRect();
  return `${s} ${Math.round(box.top)}-${Math.round(box.bottom)}`;
});
"""


def on_screen(person: Person, selector: str) -> bool:
    return bool(person.driver.execute_script(ON_SCREEN, selector))


def focused(person: Person) -> str:
    return str(person.driver.switch_to.active_element.get_attribute("id"))


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_first_roll_from_an_invite_takes_three_actions_on_one_screen(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    ann.join(invite_link(server))
    assert ann.driver.execute_script("return window.scrollY") == 0
    assert on_screen(ann, "#roll-submit") and on_screen(ann, "#log-heading")
    actions = 0

    # The default is a check on 1d20, which needs a target: pressing Roll says so beside
    # the target, on the screen, and puts the cursor there.
    ann.click("#roll-submit")
    actions += 1
    error = ann.wait_text("#roll-target-error", "target")
    assert ann.find("#roll-target-error").get_attribute("role") == "alert"
    assert focused(ann) == "roll-target" and on_screen(ann, "#roll-target-error")
    ann.driver.switch_to.active_element.send_keys("12")
    actions += 1
    assert not ann.find("#roll-target-error").is_displayed(), error  # fixed: the error goes
    ann.click("#roll-submit")
    actions += 1
    ann.wait_roll(1, "ann check", "vs 12")
    assert actions <= 3
    # The newest roll and the Roll button, both on the screen without scrolling. The dice
    # are the server's: a d20 showing 20 explodes (R12) and draws a row more, so the whole
    # roll is held to the screen when it drew one die, its head and first die whatever it drew.
    where = ann.driver.execute_script(PLACES, ["header", ".roll-bar", "#log-heading", "#roll-1"])
    assert on_screen(ann, "#roll-submit"), where
    assert on_screen(ann, "#roll-1 .roll-head"), where
    assert on_screen(ann, "#roll-1 .dice li:first-child"), where
    if len(ann.all("#roll-1 .dice li")) == 1:
        assert on_screen(ann, "#roll-1"), where


# How many times the page has asked the API for odds.
ODDS_ASKED = """
return performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/v1/odds"))
  .length;
"""


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_odds_line_comes_with_the_page_so_nothing_below_it_moves_after(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    # Filled in a moment after the first paint, the line pushed the page below it down:
    # a tap on "Sign in on another device" on a phone then fell on what had moved there.
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    ann.join(invite_link(server))
    ann.open(f"/s/{ann.session_id}")
    odds = ann.find("#roll-odds").text  # read at once, as the page has loaded
    assert odds == "Give a target or a DC to see the chance of success (average 11.04).", odds
    assert ann.driver.execute_script(ODDS_ASKED) == 0
    below = ann.find("#devices").rect["y"]
    ann.type("#roll-expression", "1d20+2")  # another question: the API answers it
    ann.wait_text("#roll-odds", "average 13.04")
    ann.type("#roll-expression", "1d20")  # the first again, answered from the page
    ann.wait_text("#roll-odds", "average 11.04")
    assert ann.find("#devices").rect["y"] == below


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_error_of_a_form_shows_at_once_and_goes_when_fixed(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    ann.open("/")
    ann.click("form button[type=submit]")  # neither a title nor a name
    ann.wait_text("#title-error", "give the session a title")
    assert "give your name" in ann.text("#name-error")
    assert focused(ann) == "title"
    ann.type("#title", "Tomb of Ash")
    ann.click("form button[type=submit]")
    ann.until(lambda: not ann.all("#title-error"), "the title's error to go")
    assert "give your name" in ann.text("#name-error")
    assert focused(ann) == "name"

    ann.join(invite_link(server))
    expression = ann.find("#roll-expression")
    expression.send_keys(Keys.CONTROL, "a")
    expression.send_keys(Keys.DELETE)
    ann.click("#roll-submit")
    assert "give the dice" in ann.wait_text("#roll-expression-error", "dice")
    assert "target" in ann.text("#roll-target-error")
    assert focused(ann) == "roll-expression"
    ann.driver.switch_to.active_element.send_keys("1d20+2")
    assert not ann.find("#roll-expression-error").is_displayed()
    assert ann.find("#roll-target-error").is_displayed()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_next_roll_carries_nothing_of_the_last_but_its_kind(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    access = server.services.access
    owner = access.as_owner(access.open_session("Tomb of Ash", "mira").started.session_id, "mira")
    gm = Person("mira", open_browser(width=width, height=height), server.url)
    gm.open(f"/sign-in/{access.sign_in_code(owner).code}")
    gm.click("form button[type=submit]")
    gm.until(lambda: "/s/" in gm.driver.current_url, "the GM's table")
    gm.wait_log_loaded()
    # The GM's greataxe check for the ghoul, blind, with a flank and typed-in dice...
    gm.fill_roll("check", "1d20+2", target="12", label="greataxe", mode="blind", faces="14, 5")
    gm.fill_roll("check", "1d20+2", **{"for": "ghoul"})
    gm.add_source("adv", 1, "flank")
    gm.submit_roll()
    gm.wait_roll(1, "ghoul check (greataxe)", "flank", "blind")
    # ...then a Perception check, typing only its dice and its target.
    gm.type("#roll-expression", "1d20+3")
    gm.type("#roll-target", "15")
    gm.submit_roll()
    text = gm.wait_roll(2, "mira check", "vs 15")
    for left_over in ("greataxe", "flank", "ghoul", "blind", "typed in"):
        assert left_over not in text, text


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_odds_say_what_each_figure_is_and_which_rerolls_they_assume(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    ann.join(invite_link(server))
    ann.fill_roll("check", "1d20", target="13", reroll="1")
    odds = ann.wait_text("#roll-odds", "Needs 13+: 60.0% if rerolled by the default policy")
    assert "(the lowest die while below its average)" in odds
    assert "64.0% rerolling any failing die as well as possible" in odds
    # Opposed: win and lose overall (they add up to 100%), the tie one round's, each named.
    ann.open(f"/s/{ann.session_id}")
    ann.fill_roll("opposed", "1d20+1", vs_name="bob")
    odds = ann.wait_text("#roll-odds", "Chance to win:", "to lose:", "a round ties")
    win, lose, tie = (float(n) for n in re.findall(r"(\d+\.\d)%", odds))
    assert abs(win + lose - 100) <= 0.1 and 0 < tie < 100, odds

"""The statistics page as a player and the GM read it, in Chromium at a phone's width and a
desktop's: each die chart says on its face which die it counts and how many dice (one die,
three dice; never "1 rolls" or rolls counted as dice); the page says how to read a z-score
and the fair line; and a GM's blind roll "for ann" is no part of ann's luck as ann reads it,
though the GM's figures count it as hers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from tests.web.live_server import LiveServer
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser

SIZES = [(360, 740), (1280, 800)]
# The words drawn in each chart (its <text>, not its <title>), when the chart is laid out.
CHART_WORDS = """
return Array.from(document.querySelectorAll(arguments[0] + ' svg text'))
  .filter((t) => t.getBBox().width > 0).map((t) => t.textContent);
"""


def sign_in(person: Person, server: LiveServer, session_id: str) -> None:
    access = server.services.access
    person.open(f"/sign-in/{access.sign_in_code(access.as_owner(session_id, person.name)).code}")
    person.click("form button[type=submit]")
    person.until(lambda: "/s/" in person.driver.current_url, "the table")


def section_of(person: Person, player: str) -> str:
    """Return the selector of the statistics section headed by ``player``."""
    for section in person.all("section.player-stats"):
        if section.find_element("css selector", "h2").text == player:
            return f'section[aria-labelledby="{section.get_attribute("aria-labelledby")}"]'
    raise AssertionError(f"no section for {player}: {person.text('main')}")


def figure(person: Person, player: str, term: str) -> str:
    """Return the figure ``term`` of ``player``'s section, as the page reads it."""
    script = (
        "const terms = document.querySelector(arguments[0]).querySelectorAll('dt');"
        "const found = Array.from(terms).find((dt) => dt.textContent === arguments[1]);"
        "return found ? found.nextElementSibling.textContent : null;"
    )
    return str(person.driver.execute_script(script, section_of(person, player), term))


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_statistics_page_counts_dice_in_words_and_keeps_a_blind_roll_out_of_luck(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    app = server.services.app
    sid = app.start_session("mira", "Tomb of Ash").session_id
    app.join("ann", sid, cmd.JoinSession("ann"))
    # ann's own: a check she wins (14 against 12) and a damage roll of three d6.
    won = cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(12), faces=(14,))
    app.request_roll("ann", sid, won)
    app.request_roll("ann", sid, cmd.RequestRoll(RollKind.DAMAGE, "3d6", faces=(2, 3, 4)))
    # The GM's blind check for ann, which she never sees: a failure (3 against 12).
    blind = cmd.RequestRoll(
        RollKind.CHECK, "1d20", target=Target(12), mode=RollMode.BLIND,
        on_behalf_of="ann", faces=(3,),
    )  # fmt: skip
    app.request_roll("mira", sid, blind)

    ann = Person("ann", open_browser(width=width, height=height), server.url)
    sign_in(ann, server, sid)
    ann.open(f"/s/{sid}/stats")
    assert figure(ann, "ann", "Checks, saves and opposed checks won") == "1 of 1"
    assert figure(ann, "ann", "Luck (won minus expected)").startswith("+0.6")  # 1 - 9/20
    drawn = ann.driver.execute_script(CHART_WORDS, section_of(ann, "ann"))
    assert any(words.startswith("d20: 1 die ·") for words in drawn), drawn
    assert any(words.startswith("d6: 3 dice ·") for words in drawn), drawn
    assert "dashed line: a fair d6 would show each face 0.5 times" in drawn
    # How to read the figures, in words, on the page itself, one press away.
    ann.click("#how-to-read > summary")
    told = ann.text("#how-to-read")
    assert "z" in told and "luck" in told.lower() and "dashed line" in told

    gm = Person("mira", open_browser(width=width, height=height), server.url)
    sign_in(gm, server, sid)
    gm.open(f"/s/{sid}/stats")
    assert figure(gm, "ann", "Checks, saves and opposed checks won") == "1 of 2"
    # ...but not in her luck, which rates only the rolls she saw: +0.6 still, not +0.1.
    assert figure(gm, "ann", "Luck (won minus expected)").startswith("+0.6")

"""Each roll mode as each role sees it, in Chromium at a phone's width and a desktop's.

A player and the GM each roll privately (gm), blind and for their own eyes (self), from the
table's form; the roller, the other player and the GM each read on their own table what
their role may see (docs/rules.md, "Who sees a roll"): the dice and a tag saying who sees
them, or one line saying the roll happened, with no dice, label or expression.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.web.live_server import LiveServer
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser

SIZES = [(360, 740), (1280, 800)]
NAMES = ("ann", "bob")
SHOWN = "shown"
# The rolls in order (roll id = place + 1): who rolls, in which mode.
ROLLS = [("ann", "gm"), ("ann", "blind"), ("ann", "self"), ("mira", "gm"), ("mira", "self")]
ROLLS += [("mira", "blind")]
# What each viewer reads of each roll: SHOWN with the words of its tag, or its one line.
SEEN = {
    "ann": [
        (SHOWN, "private: the roller and the GMs"),
        ("", "ann rolled blind"),
        (SHOWN, "the roller's eyes only"),
        ("", "mira rolled privately"),
        ("", "mira rolled for their own eyes"),
        ("", "the GM rolled blind"),
    ],
    "bob": [
        ("", "ann rolled privately"),
        ("", "ann rolled blind"),
        ("", "ann rolled for their own eyes"),
        ("", "mira rolled privately"),
        ("", "mira rolled for their own eyes"),
        ("", "the GM rolled blind"),
    ],
    "mira": [
        (SHOWN, "private: the roller and the GMs"),
        (SHOWN, "blind: the GMs only"),
        ("", "ann rolled for their own eyes"),
        (SHOWN, "private: the roller and the GMs"),
        (SHOWN, "the roller's eyes only"),
        (SHOWN, "blind: the GMs only"),
    ],
}


def seat(open_browser: OpenBrowser, server: LiveServer, size: tuple[int, int]) -> list[Person]:
    """Open a session for mira (the GM) and seat ann and bob by invite, each in a browser."""
    access = server.services.access
    owner = access.as_owner(access.open_session("Tomb of Ash", "mira").started.session_id, "mira")
    width, height = size
    gm = Person("mira", open_browser(width=width, height=height), server.url)
    gm.open(f"/sign-in/{access.sign_in_code(owner).code}")
    gm.click("form button[type=submit]")
    gm.until(lambda: "/s/" in gm.driver.current_url, "the GM's table")
    gm.wait_log_loaded()
    players = [Person(name, open_browser(width=width, height=height), server.url) for name in NAMES]
    for player in players:
        player.join(f"{server.url}/join/{access.invite(owner).code}")
    return [gm, *players]


@pytest.mark.parametrize("size", SIZES)
def test_each_mode_shows_each_role_what_it_may_see(
    open_browser: OpenBrowser, server: LiveServer, size: tuple[int, int]
) -> None:
    people = {person.name: person for person in seat(open_browser, server, size)}
    for roll_id, (roller, mode) in enumerate(ROLLS, start=1):
        person = people[roller]
        person.fill_roll("damage", "1d6+1", mode=mode, label=f"secret {roll_id}")
        person.submit_roll()
        person.wait_roll(roll_id, "#")
        # The next roll starts public again: a private roll never makes the next one private.
        assert person.find("#roll-mode").get_attribute("value") == "public"
    for name, seen in SEEN.items():
        viewer = people[name]
        for roll_id, (shown, words) in enumerate(seen, start=1):
            text = viewer.wait_roll(roll_id, words)
            dice = viewer.all(f"#roll-{roll_id} .die")
            where = f"{name} reads #{roll_id} as: {text}"
            if shown:
                assert dice and f"secret {roll_id}" in text, where
            else:
                assert not dice and "secret" not in text and "1d6" not in text, where

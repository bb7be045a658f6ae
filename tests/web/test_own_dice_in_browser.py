"""Opposed checks at the table, in Chromium at a phone's width and a desktop's (R6, R14):
each side acts on its own member's page in its turn. A requester may leave the other
side's dice to its member: the check waits on every page, and the other member types in
the physical die they rolled at their own table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.web.live_server import LiveServer
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser

SIZES = [(360, 740), (1280, 800)]


def two_invites(server: LiveServer) -> tuple[str, str]:
    """Open a session run by mira; return two invite links to it (each is used once)."""
    access = server.services.access
    opened = access.open_session("Tomb of Ash", "mira")
    owner = access.as_owner(opened.started.session_id, "mira")
    return tuple(f"{server.url}/join/{access.invite(owner).code}" for _ in range(2))  # type: ignore[return-value]


def ann_and_bob(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> tuple[Person, Person]:
    """Open mira's session and let ann and bob join it, each in a browser of their own."""
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    bob = Person("bob", open_browser(width=width, height=height), server.url)
    for person, link in zip((ann, bob), two_invites(server), strict=True):
        person.join(link)
    return ann, bob


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_r6_the_other_member_rolls_and_types_in_their_own_side_from_their_table(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    ann, bob = ann_and_bob(open_browser, server, width, height)
    ann.fill_roll("opposed", "1d20", vs_name="bob", faces="12")
    ann.more_options()
    ann.click("#roll-vs-rolls-own")
    ann.submit_roll()
    ann.wait_roll(1, "Round 1: ann 12, bob yet to roll", "Waiting for bob to roll their own dice")
    assert not ann.all("#roll-side-1")  # bob's dice are not ann's to roll
    # bob's page follows live: his turn, with a field for the die he rolled at his table.
    bob.wait_roll(1, "Your turn: roll your dice for round 1 (1d20)")
    bob.type("#side-faces-1", "15")
    bob.click("#roll-side-1")
    for person in (bob, ann):
        text = person.wait_roll(1, "Round 1: ann 12, bob 15", "bob wins")
        assert "typed in by bob" in text and "typed in by ann" in text
        assert "yet to roll" not in text


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_r6_r11_each_side_of_an_opposed_check_rerolls_on_its_own_members_page_in_its_turn(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    ann, bob = ann_and_bob(open_browser, server, width, height)
    # Each side with one reroll, from the form: ann's die typed in, bob's the server's.
    ann.fill_roll("opposed", "1d20", vs_name="bob", faces="3", reroll="1", vs_reroll="1")
    ann.click("#roll-no-explode")
    ann.wait_text("#roll-odds", "Chance to win:")
    ann.submit_roll()
    ann.wait_roll(1, "Your decision: 1 reroll left")
    bob.wait_roll(1, "Waiting for ann's side to reroll or accept")
    assert not bob.all("#roll-1 .die-pick")  # ann's dice are not bob's to press
    ann.click("#accept-1")
    # Now bob's turn, on bob's page: his own die to press, with his physical die typed in.
    bob.wait_roll(1, "Your decision: 1 reroll left")
    ann.wait_roll(1, "Waiting for bob's side to reroll or accept")
    assert not ann.all("#roll-1 .die-pick")
    picks = bob.all("#roll-1 .die-pick")
    assert len(picks) == 1  # bob's one d20, not ann's
    picks[0].click()
    bob.type("#reroll-faces-1", "5")
    bob.click("#reroll-1")
    for person in (ann, bob):
        person.wait_roll(1, "bob wins")

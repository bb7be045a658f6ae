"""The GM panel kept live, and the pages' words, in Chromium at a phone's width and a
desktop's: a join, a dispute and a reveal reach an open panel without a reload; the GM sees
a badge per open dispute; the panel speaks in table words with rule ids and hashes behind
"details"; a spent invite and a browser not signed in are told plainly what to do; a player
gets back in on another browser without the GM.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from diceledger.domain.session import commands as cmd
from diceledger.web.context import Settings
from tests.web.live_server import LiveServer, live_server
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser

HASH = re.compile(r"\b[0-9a-f]{32,}\b")
SIZES = [(360, 740), (1280, 800)]


def open_session(gm: Person) -> None:
    gm.open("/")
    gm.type("#title", "Tomb of Ash")
    gm.type("#name", "mira")
    gm.click("form button[type=submit]")
    gm.until(lambda: "/s/" in gm.driver.current_url, "the table did not open")
    gm.session_id = gm.driver.current_url.split("/s/")[1]


def invite(gm: Person) -> str:
    gm.click("#new-invite")
    gm.until(lambda: gm.all("#invite-links input"), "an invite link")
    return str(gm.all("#invite-links input")[0].get_attribute("value"))


def gm_and_ann(
    open_browser: OpenBrowser, server: LiveServer, size: tuple[int, int]
) -> tuple[Person, Person]:
    """Open a session as its GM, on the GM panel, and let ann join by an invite from it."""
    width, height = size
    gm = Person("mira", open_browser(width=width, height=height), server.url)
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    open_session(gm)
    gm.open(f"/s/{gm.session_id}/gm")
    ann.join(invite(gm))
    return gm, ann


def shown_words(person: Person) -> str:
    """Return the text a reader sees: folded details are left out (Selenium reads only what
    is rendered)."""
    return person.text("main")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_gm_panel_follows_joins_disputes_and_reveals_live(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    gm = Person("mira", open_browser(width=width, height=height), server.url)
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    open_session(gm)
    gm.open(f"/s/{gm.session_id}/gm")
    words = shown_words(gm)
    assert "Seed 1: secret until revealed" in words
    assert "Epoch" not in words and not HASH.search(words)
    # Ending the session is there, but not dressed as the page's main action.
    end = gm.find("#end-session")
    assert end.value_of_css_property("background-color") == "rgba(0, 0, 0, 0)"

    # An invite's expiry reads as people read times: to the minute, the zone named.
    link = invite(gm)
    label = gm.all("#invite-links label")[0].text
    ann.join(link)
    assert re.fullmatch(r"Invite link \(one use, until \d{4}-\d\d-\d\d \d\d:\d\d \S+\)", label)
    gm.until(lambda: gm.all('#members tr[data-member="ann"]'), "ann's row, live")
    assert "player" in gm.text('#members tr[data-member="ann"]')

    ann.fill_roll("effect", "1d6", faces="4")
    ann.submit_roll()
    ann.wait_roll(1, "ann effect")
    ann.click("#dispute-1")
    ann.type("#dispute-reason-1", "the die fell off the table")
    ann.click("#send-dispute-1")
    ann.wait_roll(1, "Disputed: waiting for the GM's ruling")
    gm.wait_text("#dispute-badges", "Roll #1 disputed")  # the panel open all along

    gm.open(f"/s/{gm.session_id}")
    gm.wait_log_loaded()
    gm.wait_text("#dispute-badges", "Roll #1 disputed")
    gm.click("#dispute-badges a")
    gm.until(lambda: "/gm" in gm.driver.current_url, "the GM panel")
    review = gm.wait_text("#review-1", "ann disputes it", "How the result was reached")
    assert "R14" not in review and "position" not in review and not HASH.search(review)
    gm.click("#review-1 details > summary")
    assert "R14" in gm.text("#review-1")
    gm.click("#review-1 button[type=submit]")
    gm.wait_text("#review-1", "Ruled: roll #1 upheld")
    gm.until(lambda: not gm.find("#dispute-badges").is_displayed(), "the badge to go")

    gm.click("#reveal-seed")
    gm.wait_text("#seed-result", "Seed 1 revealed")
    gm.wait_text("#epochs", "Seed 1: revealed", "Seed 2: secret until revealed")
    assert "Seed 1: secret" not in gm.text("#epochs")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_spent_invite_and_a_lost_sign_in_say_plainly_how_to_get_back_in(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    gm = Person("mira", open_browser(width=width, height=height), server.url)
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    open_session(gm)
    gm.open(f"/s/{gm.session_id}/gm")
    link = invite(gm)
    ann.join(link)

    ann.driver.get(link)  # the invite again, spent now
    assert "Forbidden" not in ann.driver.title
    assert "This invite link cannot be used again" in ann.text("h1")
    assert "used already" in ann.text("main") and "ask the GM" in ann.text("main")

    # Ann on a second browser, which has no cookie of the session:
    other = Person("ann", open_browser(width=width, height=height), server.url)
    other.open(f"/s/{gm.session_id}")
    told = other.text("main")
    assert "You are not signed in here" in told
    assert not re.search(r"Authorization|Bearer|dlt_|token", told)
    assert "Sign in on another device" in told
    # Joining again under her own name is refused, and the page says how to get back in.
    gm.open(f"/s/{gm.session_id}/gm")
    other.driver.get(invite(gm))
    other.type("#name", "ann")
    other.click("form button[type=submit]")
    assert "ann is already in session" in other.wait_text("#name-error", "already")
    assert "Sign in on another device" in other.text("#coming-back")
    assert other.driver.switch_to.active_element.get_attribute("id") == "name"

    ann.open(f"/s/{ann.session_id}")
    ann.click("#devices > summary")
    ann.click("#new-device-link")
    ann.until(lambda: ann.all("#device-links input"), "a sign-in link")
    sign_in = str(ann.find("#device-links input").get_attribute("value"))
    other.driver.get(sign_in)
    other.click("form button[type=submit]")
    other.until(lambda: "/s/" in other.driver.current_url, "the table")
    other.wait_log_loaded()
    assert "Signed in as ann" in other.text(".signed-in")
    assert "dlt_" not in other.driver.current_url


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_voided_roll_is_rolled_again_from_the_log_replacing_it(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    gm, ann = gm_and_ann(open_browser, server, (width, height))
    ann.fill_roll("check", "1d20+2", target="12", faces="3")
    ann.submit_roll()
    ann.wait_roll(1, "ann check", "vs 12: failure")
    ann.click("#dispute-1")
    ann.type("#dispute-reason-1", "the die fell off the table")
    ann.click("#send-dispute-1")
    ann.wait_roll(1, "Disputed: waiting for the GM's ruling")
    assert not ann.all("#dispute-1")  # disputed once is enough until the GM rules
    gm.open(f"/s/{gm.session_id}/gm")
    gm.click("#void-1")
    gm.type("#note-1", "cocked die")
    gm.click("#review-1 button[type=submit]")
    gm.wait_text("#review-1", "Ruled: roll #1 voided")
    # ann reads the ruling live, with the GM's note: the void result struck, not its reason.
    ann.wait_roll(1, "Voided by the GM after a dispute", "The GM's note: cocked die")
    total = ann.find("#roll-1 .roll-total")
    assert "line-through" in total.value_of_css_property("text-decoration-line")
    reason = ann.find("#roll-1 .tag.voided")
    assert "line-through" not in reason.value_of_css_property("text-decoration-line")
    gm.open(f"/s/{gm.session_id}")
    gm.wait_roll(1, "Voided by the GM")
    assert not gm.all("#replace-1")  # only its roller rolls it again

    again = ann.wait_text("#replace-1", "Roll again, replacing #1")
    ann.click("#replace-1")
    text = ann.wait_roll(2, "ann check", "vs 12", "Rolls again #1")
    assert "1d20+2" in text, again
    ann.wait_roll(1, "Rolled again as #2")
    assert not ann.all("#replace-1")  # once is all the rules allow
    gm.wait_roll(2, "Rolls again #1")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_gm_signs_a_player_back_in_and_the_player_signs_a_device_out(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    gm, ann = gm_and_ann(open_browser, server, (width, height))

    gm.open(f"/s/{gm.session_id}/gm")
    gm.click('button[data-action="sign-in-for"][data-name="ann"]')
    gm.until(lambda: gm.all("#sign-in-links input"), "ann's sign-in link")
    assert "Sign-in link for ann" in gm.text("#sign-in-links")
    link = str(gm.find("#sign-in-links input").get_attribute("value"))

    phone = Person("ann", open_browser(width=width, height=height), server.url)
    phone.driver.get(link)
    phone.click("form button[type=submit]")
    phone.until(lambda: "/s/" in phone.driver.current_url, "the table")
    phone.wait_log_loaded()
    assert "Signed in as ann" in phone.text(".signed-in")

    phone.click("#devices > summary")
    phone.click("#show-devices")
    phone.until(lambda: len(phone.all("#device-list li")) == 2, "ann's two devices")
    assert "(this device)" in phone.text("#device-list")
    phone.click("#device-list li:first-child button")  # the oldest: the first browser
    phone.until(lambda: len(phone.all("#device-list li")) == 1, "one device left")
    assert "(this device)" in phone.text("#device-list")

    ann.open(f"/s/{gm.session_id}")  # the first browser, signed out from the phone
    assert "You are not signed in here" in ann.text("main")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_sixth_device_signs_the_first_out(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    gm, ann = gm_and_ann(open_browser, server, (width, height))  # her first device
    access = server.services.access
    for _ in range(4):  # four more, each redeeming a sign-in link of hers
        access.sign_in(access.sign_in_code(access.as_owner(gm.session_id, "ann")).code)

    ann.click("#devices > summary")
    ann.click("#new-device-link")
    ann.until(lambda: ann.all("#device-links input"), "a sign-in link")
    phone = Person("ann", open_browser(width=width, height=height), server.url)
    phone.driver.get(str(ann.find("#device-links input").get_attribute("value")))
    phone.click("form button[type=submit]")  # the sixth
    phone.until(lambda: "/s/" in phone.driver.current_url, "the table")
    phone.wait_log_loaded()
    phone.click("#devices > summary")
    phone.click("#show-devices")
    phone.until(lambda: len(phone.all("#device-list li")) == 5, "five devices, no more")
    assert "(this device)" in phone.text("#device-list li:last-child")

    ann.open(f"/s/{gm.session_id}")  # the first device, the oldest: signed out
    assert "You are not signed in here" in ann.text("main")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_r6_a_player_cannot_choose_the_other_members_dice_and_is_told_beside_that_field(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    gm, ann = gm_and_ann(open_browser, server, (width, height))
    server.services.app.join("bob", gm.session_id, cmd.JoinSession("bob"))
    # Pressed at once after typing: the odds of what was typed, arriving after the refusal,
    # must not take the refusal away.
    ann.fill_roll("opposed", "1d20", vs_name="bob", vs_expression="1d4")
    ann.submit_roll()
    told = ann.wait_text("#roll-vs-expression-error", "bob's side rolls one d20 and their MODs")
    assert ann.driver.switch_to.active_element.get_attribute("id") == "roll-vs-expression", told
    ann.until(lambda: "Chance to win" in ann.text("#roll-odds"), "the odds of what was typed")
    assert "bob's side rolls one d20" in ann.text("#roll-vs-expression-error")
    assert ann.text("#dice-log") == ""  # nothing was rolled
    ann.type("#roll-vs-expression", "1d20")
    ann.submit_roll()
    ann.wait_roll(1, "ann opposed check 1d20 vs bob 1d20")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_r6_an_opposed_checks_dice_read_by_side_round_and_typist(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    gm, ann = gm_and_ann(open_browser, server, (width, height))
    server.services.app.join("bob", gm.session_id, cmd.JoinSession("bob"))
    # ann types in her own die; bob's side is not hers to type.
    ann.fill_roll("opposed", "1d20", vs_name="bob", faces="17,3")
    ann.submit_roll()
    ann.wait_text("#roll-faces-error", "faces typed in are only for your own side")
    ann.type("#roll-faces", "17")
    ann.submit_roll()
    ann.wait_roll(1, "Round 1: ann 17, bob ", "typed in by ann")
    # The GM against an NPC types in both sides' dice: a tie, then a second round.
    gm.open(f"/s/{gm.session_id}")
    gm.wait_log_loaded()
    gm.fill_roll("opposed", "1d20", vs_name="orc", faces="10,10,15,3")
    gm.submit_roll()
    gm.wait_roll(2, "Round 1: mira 10, orc 10", "Round 2: mira 15, orc 3")
    app = server.services.app
    app.open_dispute("bob", gm.session_id, 1, "who typed what?")
    app.open_dispute("ann", gm.session_id, 2, "a tie?")

    gm.open(f"/s/{gm.session_id}/gm")
    rows = [row.text for row in gm.all("#review-1 .review-dice tbody tr")]
    assert rows[0].startswith("ann, round 1 #0 d20 17") and "typed in by ann" in rows[0], rows
    assert rows[1].startswith("bob, round 1 #0 d20") and "the server's dice" in rows[1], rows
    rows = [row.text for row in gm.all("#review-2 .review-dice tbody tr")]
    sides = [row.split(" #")[0] for row in rows]
    assert sides == ["mira, round 1", "orc, round 1", "mira, round 2", "orc, round 2"], rows
    assert all("typed in by mira" in row for row in rows), rows


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_an_open_table_follows_its_roll_resolving_and_the_session_ending(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    gm, ann = gm_and_ann(open_browser, server, (width, height))
    ann.fill_roll("damage", "2d6", reroll="1", reroll_scope="damage", faces="2, 3")
    ann.submit_roll()
    ann.wait_text("#roll-result", "Rolled #1: total 5, waiting for your rerolls")
    ann.click("#accept-1")
    ann.wait_text("#roll-result", "Rolled #1: total 5")
    ann.until(lambda: "waiting" not in ann.text("#roll-result"), "the line to stop waiting")
    assert not ann.find("#ended-notice").is_displayed()

    server.services.app.end_session("mira", gm.session_id)  # at the GM's own terminal
    ann.until(lambda: ann.find("#ended-notice").is_displayed(), "the ended notice, live")
    assert "This session has ended" in ann.text("#ended-notice")
    assert ann.find("#roll-submit").get_attribute("disabled") is not None


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_roll_limit_counts_a_members_rolls_on_all_her_devices(
    open_browser: OpenBrowser, tmp_path: Path, width: int, height: int
) -> None:
    limited = Settings(rolls_per_minute=2, redemptions_per_minute=1_000)
    with live_server(f"sqlite:///{tmp_path / 'limited.sqlite'}", settings=limited) as server:
        access = server.services.access
        sid = access.open_session("Tomb of Ash", "mira").started.session_id
        ann = Person("ann", open_browser(width=width, height=height), server.url)
        ann.join(f"{server.url}/join/{access.invite(access.as_owner(sid, 'mira')).code}")
        phone = Person("ann", open_browser(width=width, height=height), server.url)
        phone.open(f"/sign-in/{access.sign_in_code(access.as_owner(sid, 'ann')).code}")
        phone.click("form button[type=submit]")
        phone.until(lambda: "/s/" in phone.driver.current_url, "the table")
        phone.wait_log_loaded()
        for roll_id in (1, 2):
            ann.fill_roll("damage", "1d6", faces="4")
            ann.submit_roll()
            ann.wait_roll(roll_id, "ann damage")
        # Her second device is no fresh budget: the limit is hers, told beside Roll.
        phone.fill_roll("damage", "1d6", faces="4")
        phone.submit_roll()
        told = phone.wait_text("#roll-submit-error", "at most 2 rolls a minute")
        assert "try again in" in told
        assert not phone.all("#roll-3")

"""A GM and two players play a session in three browsers, the way people would.

One server (uvicorn on 127.0.0.1) and three headless Chromiums, each with its own profile
and cookies. The tests run in order, each one scene of the same session: joining by
invite, a check with advantage, an exploding damage roll rerolled by clicking a die, an
opposed check that ties, a blind roll, a dispute ruled by the GM, the replay, the
statistics, and the verification in the browser, honest and tampered.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

import pytest
from selenium.webdriver.common.keys import Keys

from diceledger.infra.app.odds import OddsQuery, Side, SingleOdds, odds_of
from diceledger.infra.store.exporting import read_export, write_export
from tests.documents import int_at
from tests.web.browser import start_chromium
from tests.web.live_server import LiveServer, live_server
from tests.web.people import VERIFY_WAIT, Person
from tests.web.tampering import change_a_face


@dataclass
class Table:
    server: LiveServer
    gm: Person
    ann: Person
    bob: Person

    @property
    def everyone(self) -> tuple[Person, Person, Person]:
        return (self.gm, self.ann, self.bob)


@pytest.fixture(scope="module")
def table(browser_available: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    folder = tmp_path_factory.mktemp("table")
    drivers = []
    try:
        with live_server(f"sqlite:///{folder / 'table.sqlite'}") as server:
            people = []
            for name in ("mira", "ann", "bob"):
                profile = folder / f"profile-{name}"
                profile.mkdir()
                drivers.append(start_chromium(profile))
                people.append(Person(name, drivers[-1], server.url))
            yield Table(server, *people)
    finally:
        for driver in drivers:
            driver.quit()


def test_a_gm_opens_a_session_and_two_players_join_by_invite(table: Table) -> None:
    gm = table.gm
    gm.open("/")
    gm.type("#title", "Tomb of Ash")
    gm.type("#name", "mira")
    gm.click("form button[type=submit]")
    gm.until(lambda: "/s/" in gm.driver.current_url)
    gm.session_id = gm.driver.current_url.split("/s/")[1]
    gm.open(f"/s/{gm.session_id}/gm")
    links: list[str | None] = []
    # The reader's zone, as the browser knows it: an invite's expiry is shown in it.
    gm.driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "America/New_York"})
    for made in (1, 2):
        gm.click("#new-invite")

        def shown(count: int = made) -> bool:
            return len(gm.all("#invite-links input")) == count

        gm.until(shown)
        links.append(gm.all("#invite-links input")[0].get_attribute("value"))
    assert all(link and f"{table.server.url}/join/dli_" in link for link in links)
    label = gm.all("#invite-links label")[0].text
    assert re.fullmatch(r"Invite link \(one use, until \d{4}-\d\d-\d\d \d\d:\d\d E[SD]T\)", label)
    table.ann.join(str(links[0]), client_seed="ann's lucky words")
    table.bob.join(str(links[1]))
    gm.open(f"/s/{gm.session_id}")
    for person in table.everyone:
        person.wait_text("#member-list", "mira", "ann", "bob")
    assert table.ann.session_id == table.bob.session_id == gm.session_id
    # No token ever reaches a URL: only the invite codes, spent now.
    assert all("dlt_" not in person.driver.current_url for person in table.everyone)
    cookies = table.ann.driver.get_cookies()
    session_cookie = next(c for c in cookies if c["name"].startswith("dl_"))
    assert session_cookie["httpOnly"] and session_cookie["sameSite"] == "Strict"


def test_a_check_with_advantage_shows_its_exact_odds_then_both_dice(table: Table) -> None:
    ann = table.ann
    ann.fill_roll("check", "1d20+3", target="12")
    ann.add_source("adv", 1, "flank")
    ann.wait_text("#advantage-score", "Advantage score +1: 2 d20, the highest counts")
    odds = odds_of(OddsQuery(Side("1d20+3", (1,)), target=12))
    assert isinstance(odds, SingleOdds)
    chance = odds.success
    assert chance is not None
    ann.wait_text("#roll-odds", f"Needs 12+: {float(chance) * 100:.1f}%")
    ann.submit_roll()
    for person in table.everyone:
        person.wait_roll(1, "ann check", "Advantage 1 (flank): score +1")
    text = ann.roll_text(1)
    assert "vs 12: success" in text or "vs 12: failure" in text
    initial = ann.all("#roll-1 .die")
    counted = ann.all("#roll-1 .die.counted strong.face")
    struck = ann.all("#roll-1 .die.discarded del.face")
    assert len(initial) >= 2 and len(counted) >= 1 and len(struck) == 1
    assert "not counted" in ann.text("#roll-1 .die.discarded")


def test_an_exploding_damage_roll_is_rerolled_by_clicking_a_die(table: Table) -> None:
    bob = table.bob
    bob.fill_roll(
        "damage", "1d6+2", reroll="1", reroll_scope="damage", faces="6, 6, 3", label="axe"
    )
    bob.submit_roll()
    text = bob.wait_roll(2, "bob damage (axe)", "1 reroll left")
    assert "Rolled #2: total 17, waiting for your rerolls" in bob.text("#roll-result")
    # The chain steps down the ladder: d6 (6) explodes into a d6 (6), then a d4.
    assert [d.text.split()[0] for d in bob.all("#roll-2 .die")] == ["d6", "d6", "d4"]
    assert "exploded from d6 #0" in text and "explosion step 2 of #0" in text
    assert "1d6 (15) + 2 = 17" in text
    table.ann.wait_roll(2, "Waiting for bob to reroll or accept")
    assert not table.ann.all("#roll-2 .die-pick")  # only the roller chooses
    picks = bob.all("#roll-2 .die-pick")
    assert len(picks) == 1  # explosion dice go with their die, never alone
    picks[0].send_keys(Keys.SPACE)  # a keyboard user presses the die
    assert picks[0].get_attribute("aria-pressed") == "true"
    bob.type("#reroll-faces-2", "2")
    bob.click("#reroll-2")
    text = bob.wait_roll(2, "reroll of #0", "= 4")
    assert text.count("rerolled away") == 3  # the die and its whole chain
    assert len(bob.all("#roll-2 .die.discarded del.face")) == 3
    # The line under the Roll button follows the roll: it no longer waits.
    bob.wait_text("#roll-result", "Rolled #2: total 4")
    assert "waiting" not in bob.text("#roll-result")
    for person in (table.gm, table.ann):
        person.wait_roll(2, "reroll of #0", "1d6 (2) + 2 = 4")


def test_an_opposed_check_that_ties_is_rolled_again(table: Table) -> None:
    ann = table.ann
    # The last check's flank does not ride along: after a roll the form starts afresh.
    assert not ann.all(".source-row")
    ann.more_options()
    ann.wait_text("#advantage-score", "Advantage score 0")
    ann.fill_roll("opposed", "1d20", vs_name="goblin", vs_expression="1d20", faces="10,10,15,3")
    odds = ann.wait_text("#roll-odds", "Chance to win:", "to lose:", "a round ties")
    win, lose, tie = (float(n) for n in re.findall(r"(\d+\.\d)%", odds))
    assert abs(win + lose - 100) <= 0.1 and 0 < tie < 100  # overall, and the tie per round
    ann.submit_roll()
    # Only a GM rolls for an NPC: the refusal is shown beside the opponent's name.
    ann.wait_text("#roll-vs-name-error", "only a GM may roll for the NPC 'goblin'")
    assert ann.find("#roll-vs-name").get_attribute("aria-invalid") == "true"
    ann.type("#roll-vs-name", "bob")
    # ann may type in her own die, never bob's (R6): faces for his side are refused.
    ann.type("#roll-faces", "10,10,15,3")
    ann.submit_roll()
    ann.wait_text("#roll-faces-error", "faces typed in are only for your own side")
    ann.type("#roll-faces", "10")
    ann.submit_roll()
    for person in (ann, table.gm, table.bob):
        text = person.wait_roll(3, "Round 1: ann 10, bob ", "typed in by ann")
        assert "typed in by bob" not in text  # bob's die is the server's
    assert not ann.all("#roll-vs-name-error:not([hidden])")


def test_a_blind_roll_is_hidden_from_players_until_the_gm_reveals_it(table: Table) -> None:
    gm = table.gm
    gm.fill_roll("effect", "1d20+2", mode="blind", label="ghoul perception", **{"for": "ghoul"})
    gm.submit_roll()
    gm.wait_roll(4, "ghoul effect (ghoul perception)", "blind: the GMs only")
    # The next roll starts from the kind's defaults: public, for nobody, no label.
    assert gm.find("#roll-kind").get_attribute("value") == "effect"
    assert gm.find("#roll-mode").get_attribute("value") == "public"
    assert gm.find("#roll-for").get_attribute("value") == ""
    assert gm.find("#roll-label").get_attribute("value") == ""
    for player in (table.ann, table.bob):
        player.wait_roll(4, "the GM rolled blind")
        assert not player.all("#roll-4 .die")
        assert "ghoul" not in player.roll_text(4)
    gm.click("#reveal-4")
    table.ann.wait_roll(4, "ghoul effect (ghoul perception)", "blind, revealed")
    assert table.ann.all("#roll-4 .die")


def test_a_player_rolls_for_their_own_eyes_and_shows_it_when_they_choose(table: Table) -> None:
    ann = table.ann
    ann.fill_roll("effect", "1d6", mode="self", faces="5")
    ann.submit_roll()
    ann.wait_roll(5, "the roller's eyes only")
    assert ann.find("#roll-mode").get_attribute("value") == "public"  # the next roll is public
    for other in (table.gm, table.bob):
        other.wait_roll(5, "ann rolled for their own eyes")
        assert not other.all("#roll-5 .die") and not other.all("#reveal-5")
    ann.click("#reveal-5")
    for other in (table.gm, table.bob):
        other.wait_roll(5, "self, revealed")
        assert other.all("#roll-5 .die")


def test_a_disputed_roll_is_reviewed_and_voided_by_the_gm(table: Table) -> None:
    bob = table.bob
    bob.click("#dispute-1")
    bob.type("#dispute-reason-1", "the die fell off the table")
    bob.click("#send-dispute-1")
    bob.wait_roll(1, "Disputed: waiting for the GM's ruling")
    assert not bob.all("#dispute-1")  # disputed once is enough until the GM rules
    gm = table.gm
    gm.open(f"/s/{gm.session_id}/gm")
    review = gm.wait_text("#review-1", "bob disputes it", "the die fell off the table")
    assert "resolves again to the same dice and outcome" in review
    assert "counted" in review and "the server's dice, seed 1" in review
    gm.click("#review-1 .review-dice details > summary")  # the draw itself, for who asks
    assert "epoch 1, nonce 1" in gm.text("#review-1")
    gm.click("#void-1")
    gm.type("#note-1", "cocked die")
    gm.click("#review-1 button[type=submit]")
    gm.wait_text("#review-1", "Ruled: roll #1 voided (cocked die)")
    for player in (table.ann, table.bob):
        # The players read the ruling with the GM's reason; the void result is struck, the
        # words saying why are not.
        player.wait_roll(1, "Voided by the GM after a dispute", "The GM's note: cocked die")
        total = player.find("#roll-1 .roll-total")
        assert "line-through" in total.value_of_css_property("text-decoration-line")
        tag = player.find("#roll-1 .tag.voided")
        assert "line-through" not in tag.value_of_css_property("text-decoration-line")


def test_the_replay_lists_no_roll_as_waiting_between_its_dice_and_its_result(
    table: Table,
) -> None:
    ann = table.ann
    ann.open(f"/s/{ann.session_id}/replay")
    # Roll #1 had no rerolls: between its dice and its result it waited for nothing.
    dice = ann.find('#timeline li[data-event="DiceRolled"]')
    ann.open(f"/s/{ann.session_id}/replay?until_position={dice.get_attribute('data-position')}")
    assert "Rolls waiting for rerolls: none" in ann.text(".standing")


def test_the_replay_scrubber_moves_a_step_per_key_without_reloading(table: Table) -> None:
    ann = table.ann
    ann.driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
    ann.open(f"/s/{ann.session_id}/replay")
    lines = ann.all("#timeline li")
    total = len(lines)
    assert total > 20 and "the GM rolled blind" not in ann.text("#timeline")
    assert "store position" not in ann.text("main")
    ann.driver.execute_script("window.stillThisPage = true;")
    scrubber = ann.find("#until-event")
    for step in (1, 2, 3):
        scrubber.send_keys(Keys.ARROW_LEFT)
        ann.wait_text("#timeline-heading", f"Events up to then ({total - step})")
        ann.wait_text("#position-shown", f"Event {total - step} of {total}")
    assert ann.driver.switch_to.active_element.get_attribute("id") == "until-event"
    scrubber.send_keys(Keys.HOME)
    ann.wait_text("#timeline-heading", "Events up to then (1)")
    assert "session 'Tomb of Ash' started" in ann.text("#timeline")
    assert "Rolls waiting for rerolls: none" in ann.text(".standing")
    # Steps named in the table's words: the roll an event belongs to.
    for _ in range(total):
        if "roll #" in ann.text("#position-shown"):
            break
        scrubber.send_keys(Keys.ARROW_RIGHT)
    assert re.search(r"Event \d+ of \d+, roll #\d+", ann.text("#position-shown"))
    assert ann.driver.execute_script("return window.stillThisPage === true;")
    assert ann.driver.switch_to.active_element.get_attribute("id") == "until-event"
    # The time picker speaks the viewer's time, and names the zone.
    assert "Asia/Tokyo" in ann.text("label[for=replay-at]")
    ann.open(f"/s/{ann.session_id}/replay")
    utc = [str(t.get_attribute("datetime")) for t in ann.all("#timeline time")]
    picked = next(i for i in range(1, total) if utc[i][:19] != utc[i - 1][:19])
    moment = datetime.fromisoformat(utc[picked]).astimezone(ZoneInfo("Asia/Tokyo"))
    ann.driver.execute_script(
        "const at = document.getElementById('replay-at');"
        "at.value = arguments[0]; at.dispatchEvent(new Event('change'));",
        moment.strftime("%Y-%m-%dT%H:%M:%S"),
    )
    ann.click("#replay-form button[type=submit]")
    up_to_then = sum(stamp[:19] <= utc[picked][:19] for stamp in utc)
    ann.wait_text("#timeline-heading", f"Events up to then ({up_to_then})")
    # Shown as people read times everywhere: the reader's zone, to the minute.
    assert moment.strftime("%Y-%m-%d %H:%M") in ann.text("#timeline li:last-child .when")
    ann.driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})


def test_the_replay_shows_and_takes_times_in_the_readers_zone(table: Table) -> None:
    ann = table.ann
    ann.driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
    try:
        ann.open(f"/s/{ann.session_id}/replay")
        first = ann.all("#timeline time")[0]
        utc = datetime.fromisoformat(str(first.get_attribute("datetime")).replace(" ", "T"))
        tokyo = utc.astimezone(ZoneInfo("Asia/Tokyo"))
        # Chromium names Tokyo's zone GMT+9; the time is the reader's, to the minute.
        assert first.text == tokyo.strftime("%Y-%m-%d %H:%M GMT+9")
        assert "your time" in ann.text('label[for="replay-at"]')
        picked = tokyo.strftime("%Y-%m-%dT%H:%M:%S")
        ann.driver.execute_script(
            "arguments[0].value = arguments[1];", ann.find("#replay-at"), picked
        )
        ann.click("#replay-form button[type=submit]")
        ann.until(lambda: "Events up to then" in ann.text("#timeline-heading"))
        sent = parse_qs(urlparse(ann.driver.current_url).query)["at"][0]
        assert datetime.fromisoformat(sent) == utc.replace(microsecond=0)
        # A time on the whole minute reads back without its ":00" (the input's own form).
        shown = str(ann.find("#replay-at").get_attribute("value"))
        assert datetime.fromisoformat(shown) == datetime.fromisoformat(picked)
    finally:
        ann.driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})


def test_statistics_draw_each_players_dice_and_luck(table: Table) -> None:
    ann = table.ann
    # bob's d20 in the opposed check (#3) is the server's, and a 20 explodes (R12): how many
    # it added is read from the log as shown, so the count below holds for every draw.
    ann.open(f"/s/{ann.session_id}")
    ann.wait_log_loaded()
    bobs_side = '#roll-3 ul[aria-label^="bob\'s dice"]'
    assert ann.all(f"{bobs_side} li")
    drawn_explosions = len(ann.all(f"{bobs_side} li.explosion"))
    ann.open(f"/s/{ann.session_id}/stats")
    titles = [t.get_attribute("textContent") for t in ann.all("svg title")]
    assert "ann: luck over the session" in titles
    assert "ann: d20 faces against a fair die" in titles
    assert "bob: d6 faces against a fair die" in titles
    assert "Explosions and rerolls per player" in titles
    bob_bars = ann.all('rect[data-player="bob"]')
    values = {b.get_attribute("data-metric"): b.get_attribute("data-value") for b in bob_bars}
    # roll #2's chain of two, rerolled away, still happened
    assert values == {"explosions": str(2 + drawn_explosions), "rerolls": "1"}


def verdict(person: Person) -> str:
    return person.wait_text("#verify-result", "erif")


def test_after_a_reveal_the_browser_verifies_the_session(
    table: Table, pyodide_available: None
) -> None:
    gm = table.gm
    gm.open(f"/s/{gm.session_id}/gm")
    gm.click("#reveal-seed")
    gm.wait_text("#seed-result", "Seed 1 revealed")
    ann = table.ann
    ann.open(f"/s/{ann.session_id}/verify")
    ann.until(lambda: ann.find("#verify-served").is_displayed())
    ann.click("#verify-served")
    ann.until(lambda: ann.all("#verify-result [data-ok]"), "a verdict", VERIFY_WAIT)
    text = ann.text("#verify-result")
    expected = table.server.services.app.verify_session(ann.session_id).as_dict()
    assert "Verified in this browser" in text
    # The page held the export to the checkpoint this browser kept on the table, signed
    # by the key it pinned: under the server's own policy, Pyodide ran in its worker.
    assert "Held to: the log and kept checkpoints." in text
    assert "\u2714 a kept checkpoint: " in text
    assert ann.find("#verify-result [data-verdict]").get_attribute("data-verdict") == "proven"
    shown = int(ann.find('[data-count="dice_verified"]').text)
    assert shown == int_at(expected, "dice_verified") > 0
    assert int(ann.find('[data-count="manual_dice"]').text) == expected["manual_dice"]


def test_a_tampered_export_fails_in_the_browser_at_its_first_bad_event(
    table: Table, pyodide_available: None, tmp_path: Path
) -> None:
    app = table.server.services.app
    honest = tmp_path / "honest.jsonl"
    honest.write_text("".join(app.export("mira", table.gm.session_id).lines), encoding="utf-8")
    tampered = tmp_path / "tampered.jsonl"
    write_export(change_a_face(list(read_export(honest))), tampered)
    ann = table.ann
    ann.open(f"/s/{ann.session_id}/verify")
    ann.find("#export-file").send_keys(str(tampered))
    ann.click("#verify-form button[type=submit]")
    ann.until(lambda: ann.all("#verify-result [data-ok]"), "a verdict", VERIFY_WAIT)
    text = ann.text("#verify-result")
    assert "Verification failed" in text and "First bad event: position" in text
    assert "seed gives" in text
    assert ann.find("#verify-result [data-ok]").get_attribute("data-ok") == "false"
    # The page says what it checked:
    assert "every die against its revealed seed" in text


def test_the_gm_ends_the_session_and_the_table_stops_taking_rolls(table: Table) -> None:
    bob = table.bob  # at the table while the GM ends the session
    bob.open(f"/s/{bob.session_id}")
    bob.wait_log_loaded()
    assert not bob.find("#ended-notice").is_displayed()
    gm = table.gm
    gm.open(f"/s/{gm.session_id}/gm")
    gm.click("#end-session")
    gm.wait_text("#end-confirm-error", "tick this first")
    gm.click("#end-confirm")
    gm.click("#end-session")
    # Which epoch the end reveals hangs on whether an earlier test revealed one.
    gm.wait_text("#end-result", "The session has ended. Seed of epoch ")
    ann = table.ann
    ann.open(f"/s/{ann.session_id}")
    assert "This session has ended" in ann.text("#ended-notice")
    assert ann.find("#roll-submit").get_attribute("disabled") is not None
    # The open page learns it live: told in words, not only a Roll button gone dead.
    bob.until(lambda: bob.find("#ended-notice").is_displayed(), "the ended notice, live")
    assert "This session has ended" in bob.text("#ended-notice")
    assert bob.find("#roll-submit").get_attribute("disabled") is not None

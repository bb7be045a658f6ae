"""The demo's pages at a phone's width and a desktop's: they fit, load only from their own
server, and look as the README shows them.

With DICELEDGER_SCREENSHOTS=docs/screenshots the pictures are written there (that is how
the README's are made); otherwise into the test's own folder.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from diceledger.cli.serve_demo import DemoTable, prepare_demo
from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from tests.web.live_server import LiveServer, free_port, live_server
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser

PAGES = {"table": "", "gm": "/gm", "replay": "/replay", "stats": "/stats"}
# The words of a page broken across lines: a name read "Gw / en", a notation "1d / 20+2".
# Words up to 16 characters must never break (a hyphen may end a line); hashes and ids may,
# to fit a phone.
SPLIT_WORDS = """
const split = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const unseen = "script, style, [hidden], details:not([open]) > :not(summary)";
  if (node.parentElement.closest(unseen)) continue;
  for (const word of node.textContent.matchAll(/[^\\s-]+/g)) {
    if (word[0].length > 16) continue;
    const range = document.createRange();
    range.setStart(node, word.index);
    range.setEnd(node, word.index + word[0].length);
    const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
    if (tops.size > 1) split.push(`${word[0]} in ${node.parentElement.outerHTML.slice(0, 120)}`);
  }
}
return split;
"""
HEIGHTS = {1280: 860, 768: 1024, 360: 760}


@pytest.fixture(scope="module")
def demo() -> Iterator[tuple[DemoTable, LiveServer]]:
    port = free_port()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICELEDGER_SEED_KEY", "")
        table = prepare_demo(f"http://127.0.0.1:{port}")
        with live_server(table.url, port) as server:
            yield table, server


@pytest.mark.parametrize("width", [1280, 768, 360])
def test_each_page_fits_its_screen_and_loads_only_from_its_own_server(
    open_browser: OpenBrowser,
    demo: tuple[DemoTable, LiveServer],
    width: int,
    tmp_path: Path,
) -> None:
    table, server = demo
    folder = Path(os.environ.get("DICELEDGER_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    gm = Person("mira", open_browser(width=width, height=HEIGHTS[width]), server.url)
    access = server.services.access  # each sign-in link works once: one per browser
    code = access.sign_in_code(access.as_owner(table.session_id, "mira")).code
    gm.open(f"/sign-in/{code}")
    gm.click("form button[type=submit]")
    gm.until(lambda: "/s/" in gm.driver.current_url)
    for name, path in PAGES.items():
        gm.open(f"/s/{table.session_id}{path}")
        if name == "table":
            gm.wait_log_loaded()
            gm.wait_roll(9, "bram check")
        page_width = gm.driver.execute_script("return document.documentElement.scrollWidth")
        assert page_width <= width, f"{name} is {page_width} px wide at {width}"
        assert gm.driver.execute_script(SPLIT_WORDS) == [], f"{name} breaks words"
        origins = gm.driver.execute_script(
            "return performance.getEntriesByType('resource').map((e) => new URL(e.name).origin);"
        )
        assert set(origins) <= {server.url}, name
        if name == "stats" and width < 1000:  # a phone shows a chart after the figures
            gm.driver.execute_script("document.querySelector('.chart').scrollIntoView();")
        picture = folder / f"{name}-{width}.png"
        gm.driver.save_screenshot(str(picture))
        assert picture.stat().st_size > 1000
    # Every control on the table has a name a screen reader reads out.
    gm.open(f"/s/{table.session_id}")
    gm.wait_log_loaded()  # the log is filled after the page loads; read it only once it is
    unnamed = gm.driver.execute_script(
        "return Array.from(document.querySelectorAll('input, select, button'))"
        ".filter((c) => c.type !== 'hidden' && !(c.labels && c.labels.length)"
        " && !c.getAttribute('aria-label') && !c.textContent.trim()).map((c) => c.outerHTML);"
    )
    assert unnamed == []
    gm.until(
        lambda: re.search(r"#\d+ the GM rolled blind|ghoul", gm.text("#dice-log")),
        "the log never showed the GM's blind roll",
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    """A table of typed-in dice, so its pictures are the same at every run: ann's damage
    with a reroll to choose, her roll for the GM's eyes, bram's check voided with a note."""
    folder = tmp_path_factory.mktemp("pictures")
    with live_server(f"sqlite:///{folder / 'pictures.sqlite'}") as server:
        app = server.services.app
        sid = app.start_session("mira", "Tomb of Ash").session_id
        for name in ("ann", "bram"):
            app.join(name, sid, cmd.JoinSession(name))
        damage = cmd.RequestRoll(RollKind.DAMAGE, "2d6+2", rerolls=1, faces=(2, 5))
        app.request_roll("ann", sid, damage)
        sneak = cmd.RequestRoll(
            RollKind.CHECK, "1d20+3", target=Target(14), mode=RollMode.GM, label="sneak",
            faces=(16,),
        )  # fmt: skip
        app.request_roll("ann", sid, sneak)
        climb = cmd.RequestRoll(RollKind.CHECK, "1d20+1", target=Target(12), faces=(4,))
        app.request_roll("bram", sid, climb)
        app.open_dispute("bram", sid, 3, "the die fell off the table")
        note = "It left the table: roll it again."
        app.resolve_dispute("mira", sid, cmd.ResolveDispute(3, cmd.Ruling.VOIDED, note))
        yield server, sid


def picture(person: Person, path: Path) -> None:
    person.driver.save_screenshot(str(path))
    assert path.stat().st_size > 1000


def signed_in(
    open_browser: OpenBrowser, server: LiveServer, sid: str, name: str, width: int
) -> Person:
    person = Person(name, open_browser(width=width, height=HEIGHTS[width]), server.url)
    access = server.services.access
    person.open(f"/sign-in/{access.sign_in_code(access.as_owner(sid, name)).code}")
    person.click("form button[type=submit]")
    person.until(lambda: "/s/" in person.driver.current_url)
    person.open(f"/s/{sid}")
    person.wait_log_loaded()
    return person


@pytest.mark.parametrize("width", [1280, 360])
def test_the_readmes_pictures_of_play_as_a_player_sees_it(
    open_browser: OpenBrowser, played: tuple[LiveServer, str], width: int, tmp_path: Path
) -> None:
    server, sid = played
    folder = Path(os.environ.get("DICELEDGER_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    ann = signed_in(open_browser, server, sid, "ann", width)
    ann.wait_roll(1, "1 reroll left")
    picture(ann, folder / f"roll-bar-{width}.png")
    pick = ann.all("#roll-1 .die-pick")[0]
    ann.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", pick)
    pick.click()
    ann.until(lambda: pick.get_attribute("aria-pressed") == "true", "the die to be pressed")
    picture(ann, folder / f"reroll-{width}.png")
    bram = signed_in(open_browser, server, sid, "bram", width)
    text = bram.wait_roll(2, "ann rolled privately")
    assert "sneak" not in text and "16" not in text
    bram.driver.execute_script(
        "document.getElementById('roll-2').scrollIntoView({block: 'center'});"
    )
    picture(bram, folder / f"private-{width}.png")
    bram.wait_roll(3, "It left the table: roll it again.")
    bram.driver.execute_script(
        "document.getElementById('roll-3').scrollIntoView({block: 'center'});"
    )
    picture(bram, folder / f"ruling-{width}.png")


@pytest.mark.parametrize("width", [1280, 768, 360])
def test_the_pages_around_the_table_fit_and_break_no_word(
    open_browser: OpenBrowser, demo: tuple[DemoTable, LiveServer], width: int
) -> None:
    table, server = demo
    access = server.services.access
    owner = access.as_owner(table.session_id, "mira")
    visitor = Person("ann", open_browser(width=width, height=HEIGHTS[width]), server.url)
    pages = {
        "home": "/",
        "join": f"/join/{access.invite(owner).code}",  # a GET spends no code
        "sign-in": f"/sign-in/{access.sign_in_code(owner).code}",
        "not signed in": f"/s/{table.session_id}",
    }
    for name, path in pages.items():
        visitor.open(path)
        page_width = visitor.driver.execute_script("return document.documentElement.scrollWidth")
        assert page_width <= width, f"{name} is {page_width} px wide at {width}"
        assert visitor.driver.execute_script(SPLIT_WORDS) == [], f"{name} breaks words"

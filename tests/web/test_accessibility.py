"""Every page, run through axe-core in Chromium at a phone's width and a desktop's: no
serious or critical violation.

axe's script comes from tests/web/axe/node_modules (``.ci/install-axe`` installs it from the
lock file beside it) and is injected by the test: the pages load nothing from another host.
Without it the test skips, naming what is missing, except in CI, where that fails the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import pytest

from diceledger.cli.serve_demo import DemoTable, prepare_demo
from tests.web.browser import browser_required
from tests.web.live_server import LiveServer, free_port, live_server
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser

AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ["violations"]}).then(
  (found) => done(found.violations.filter((v) => ["serious", "critical"].includes(v.impact))
    .map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(
      (n) => n.target.join(" ") + ": " + n.failureSummary)}))),
  (error) => done([{id: "axe failed", impact: "critical", nodes: [String(error)]}]));
"""

OPEN_ALL = "document.querySelectorAll('details').forEach((d) => { d.open = true; });"


class Violation(TypedDict):
    id: str
    impact: str
    nodes: list[str]


@pytest.fixture(scope="module")
def axe_script() -> str:
    if not AXE.exists():
        reason = f"no axe-core at {AXE} (run .ci/install-axe)"
        if browser_required():
            pytest.fail(f"CI needs the accessibility test to run: {reason}")
        pytest.skip(reason)
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def demo() -> Iterator[tuple[DemoTable, LiveServer]]:
    port = free_port()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICELEDGER_SEED_KEY", "")
        table = prepare_demo(f"http://127.0.0.1:{port}")
        with live_server(table.url, port) as server:
            # An open dispute, so the GM panel shows a review and the pages their badges.
            server.services.app.open_dispute("bram", table.session_id, 9, "the die fell off")
            yield table, server


def violations(person: Person, axe_script: str) -> list[Violation]:
    person.driver.execute_script(axe_script)
    found: list[Violation] = person.driver.execute_async_script(RUN_AXE)
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("width", "height"), [(360, 740), (1280, 800)])
def test_no_page_has_a_serious_accessibility_violation(
    open_browser: OpenBrowser,
    demo: tuple[DemoTable, LiveServer],
    axe_script: str,
    width: int,
    height: int,
    scheme: str,
) -> None:
    table, server = demo
    access = server.services.access
    owner = access.as_owner(table.session_id, "mira")
    used = access.invite(owner).code
    access.join(table.session_id, used, f"guest{width}{scheme}", "")
    person = Person("mira", open_browser(width=width, height=height), server.url)
    person.driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )
    found: dict[str, list[Violation]] = {}

    def check(page: str, path: str) -> None:
        person.open(path)
        if page == "table":
            person.wait_log_loaded()
        found[page] = violations(person, axe_script)
        # And with everything folded away unfolded, and the forms' errors showing.
        person.driver.execute_script(OPEN_ALL)
        found[f"{page}, unfolded"] = violations(person, axe_script)

    check("home", "/")
    person.click("form button[type=submit]")  # nothing filled in: the errors show
    found["home, errors"] = violations(person, axe_script)
    check("join", f"/join/{access.invite(owner).code}")
    check("used invite", f"/join/{used}")
    check("not signed in", f"/s/{table.session_id}")
    check("no such session", "/s/ses_nosuch")
    code = access.sign_in_code(owner).code
    check("sign-in", f"/sign-in/{code}")
    person.click("form button[type=submit]")
    person.until(lambda: "/s/" in person.driver.current_url)
    campaigns = server.services.app.campaigns
    if campaigns.campaign_of(table.session_id) is None:  # the campaign page needs one
        campaigns.start("mira", "The long road", first_session=table.session_id)
    for page in ("table", "gm", "replay", "stats", "campaign", "verify"):
        check(page, f"/s/{table.session_id}" + ("" if page == "table" else f"/{page}"))
        if page == "table":
            person.fill_roll("check", "1d20")  # no target: the form says so
            person.submit_roll()
            person.until(lambda: person.all("[aria-invalid=true]"), "the form's error")
            found["table, errors"] = violations(person, axe_script)
            person.type("#roll-target", "12")  # rolled: the "Roll again" row shows
            person.submit_roll()
            person.until(lambda: person.find("#recent-rolls").is_displayed(), "Roll again")
            found["table, after a roll"] = violations(person, axe_script)
    found = {page: seen for page, seen in found.items() if seen}
    assert found == {}

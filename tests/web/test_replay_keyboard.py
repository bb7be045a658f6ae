"""The replay by keyboard at a phone's width and a desktop's: each arrow press moves one
event, in place, the focus staying on the scrubber; no step lists a roll without rerolls as
waiting for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from selenium.webdriver.common.keys import Keys

from tests.web.live_server import LiveServer
from tests.web.people import Person

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser


@pytest.mark.parametrize(("width", "height"), [(360, 740), (1280, 800)])
def test_each_arrow_press_moves_one_event_and_keeps_the_focus(
    open_browser: OpenBrowser, server: LiveServer, width: int, height: int
) -> None:
    access = server.services.access
    opened = access.open_session("Tomb of Ash", "mira")
    owner = access.as_owner(opened.started.session_id, "mira")
    ann = Person("ann", open_browser(width=width, height=height), server.url)
    ann.join(f"{server.url}/join/{access.invite(owner).code}")
    for roll_id, face in ((1, "14"), (2, "3")):
        ann.fill_roll("check", "1d20", target="12", faces=face)
        ann.submit_roll()
        ann.wait_roll(roll_id, "ann check", "vs 12")

    ann.open(f"/s/{ann.session_id}/replay")
    total = len(ann.all("#timeline li"))
    ann.driver.execute_script("window.stillThisPage = true;")
    scrubber = ann.find("#until-event")
    scrubber.send_keys(Keys.HOME)
    for step in range(1, total + 1):
        ann.wait_text("#timeline-heading", f"Events up to then ({step})")
        assert f"Event {step} of {total}" in ann.text("#position-shown")
        assert "Rolls waiting for rerolls: none" in ann.text(".standing"), step
        assert ann.driver.switch_to.active_element.get_attribute("id") == "until-event"
        scrubber.send_keys(Keys.ARROW_RIGHT)
    assert ann.driver.execute_script("return window.stillThisPage === true;")

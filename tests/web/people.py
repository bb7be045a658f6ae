"""A person at the table, driving their own browser the way they would: click, type, read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

WAIT = 30  # seconds; live updates arrive within a poll or two
# The verify page's first verify loads Pyodide (13 MB) and starts Python in a worker.
VERIFY_WAIT = 180
# Compares an element's place in the document (scrolling aside) across two animation frames.
STILL_SCRIPT = """
const [element, done] = arguments;
const place = () => {
  const box = element.getBoundingClientRect();
  return [box.left + scrollX, box.top + scrollY, box.width, box.height].join();
};
const before = place();
requestAnimationFrame(() => requestAnimationFrame(() => done(place() !== before)));
"""


@dataclass
class Person:
    """One browser (its own profile and cookies) and the server it talks to."""

    name: str
    driver: WebDriver
    base: str
    session_id: str = ""

    def open(self, path: str) -> None:
        self.driver.get(self.base + path)

    def find(self, selector: str) -> WebElement:
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector: str) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def type(self, selector: str, text: str) -> None:
        field = self.find(selector)
        field.clear()
        field.send_keys(text)

    def click(self, selector: str) -> None:
        """Click once the element can be clicked: shown, and enabled by its page's script."""
        self.until(
            lambda: self.find(selector).is_displayed() and self.find(selector).is_enabled(),
            f"{selector} to be clickable",
        )
        # A click lands where the element was a moment before: while a line above it is still
        # being filled in, it would fall on the page around it and do nothing.
        self.until(lambda: self._still(self.find(selector)), f"{selector} to stop moving")
        self.find(selector).click()

    def _still(self, element: WebElement) -> bool:
        """Whether ``element`` keeps its place in the page over two drawn frames."""
        moved = self.driver.execute_async_script(STILL_SCRIPT, element)
        return moved is False

    def until(
        self, condition: Callable[[], object], message: str = "", wait: float = WAIT
    ) -> object:
        """Wait for ``condition``; on a timeout, say what the page showed instead."""
        try:
            return WebDriverWait(self.driver, wait).until(lambda _: condition(), message)
        except TimeoutException:
            shown = self.driver.find_element(By.TAG_NAME, "body").text
            waited = f"{self.name}: waited for {message}; the page shows:\n{shown}"
            raise AssertionError(waited) from None

    def text(self, selector: str) -> str:
        """Return the element's text, or "" while it is missing (or being redrawn)."""
        try:
            found = self.all(selector)
            return found[0].text if found else ""
        except StaleElementReferenceException:
            return ""

    def wait_text(self, selector: str, *words: str) -> str:
        """Wait until the element shows every one of ``words``; return its text."""
        self.until(lambda: all(w in self.text(selector) for w in words), f"{selector}: {words}")
        return self.text(selector)

    # -- signing in -------------------------------------------------------------------------

    def join(self, link: str, client_seed: str = "") -> None:
        """Open an invite link, give a name (and client seed) and land on the table."""
        self.driver.get(link)
        self.type("#name", self.name)
        if client_seed:
            self.type("#client_seed", client_seed)
        self.click("form button[type=submit]")
        self.until(lambda: "/s/" in self.driver.current_url, "the table did not open")
        self.session_id = self.driver.current_url.split("/s/")[1].split("/")[0]
        self.wait_log_loaded()

    def wait_log_loaded(self) -> None:
        self.until(lambda: self.text("#log-status") != "Loading the rolls…", "log never loaded")

    # -- rolling ----------------------------------------------------------------------------

    def more_options(self) -> None:
        details = self.find("details.more-options")
        if details.get_attribute("open") is None:
            self.click("details.more-options summary")

    def add_source(self, kind: str, amount: int, label: str) -> None:
        self.more_options()
        self.click(f'[data-add="{kind}"]')
        row = self.all(f'[data-sources="{kind}"] .source-row')[-1]
        amount_field = row.find_element(By.CSS_SELECTOR, ".source-amount")
        amount_field.clear()
        amount_field.send_keys(str(amount))
        row.find_element(By.CSS_SELECTOR, ".source-label").send_keys(label)

    def fill_roll(self, kind: str, expression: str, **options: str) -> None:
        """Fill the roll form: kind, dice, and any of target, dc, vs_name, vs_expression,
        vs_reroll, reroll, reroll_scope, faces, label, for, mode (options named as the form's
        fields)."""
        Select(self.find("#roll-kind")).select_by_value(kind)
        self.type("#roll-expression", expression)
        fields = {"target": "#roll-target", "vs_name": "#roll-vs-name"}  # the roll bar's
        hidden = {"reroll": "#roll-reroll", "faces": "#roll-faces", "label": "#roll-label"}
        hidden |= {"for": "#roll-for", "dc": "#roll-dc", "against": "#roll-against"}
        hidden |= {"vs_expression": "#roll-vs-expression", "vs_reroll": "#roll-vs-reroll"}
        for name, value in options.items():
            if name in fields:
                self.type(fields[name], value)
            elif name in hidden:
                self.more_options()
                self.type(hidden[name], value)
            elif name == "reroll_scope":
                self.more_options()
                Select(self.find("#roll-reroll-scope")).select_by_value(value)
            elif name == "mode":
                self.more_options()
                Select(self.find("#roll-mode")).select_by_value(value)
            else:
                raise AssertionError(f"no field {name}")

    def submit_roll(self) -> None:
        self.click("#roll-submit")

    def roll_text(self, roll_id: int) -> str:
        return self.text(f"#roll-{roll_id}")

    def wait_roll(self, roll_id: int, *words: str) -> str:
        return self.wait_text(f"#roll-{roll_id}", *words)

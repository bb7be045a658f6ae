"""The browser verifies a played session as ``diceledger verify --file`` does, without trusting it.

A session of every kind of roll is played through the command line and exported; the
browser's verifier must report the same counts on the honest exports, and name the same
first bad event as the command line on tampered copies and on the conformance corpus.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from diceledger.conformance import INDEX
from diceledger.domain.records import RecordedEvent
from diceledger.infra.store.exporting import read_export, write_export
from tests.conformance.corpus import FOLDER as CORPUS
from tests.infra.forging import rechain
from tests.web.browser import copy_static, run_module, serve_folder
from tests.web.conftest import OpenBrowser
from tests.web.sessions import Cli, PlayedSession, play_session

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

SAME_COUNTS = (
    "session_id",
    "ok",
    "events",
    "rolls",
    "dice_verified",
    "manual_dice",
    "not_yet_verifiable_dice",
    "unrevealed_epochs",
    "first_failure",
)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> PlayedSession:
    return play_session(tmp_path_factory.mktemp("played"))


@pytest.fixture(scope="module")
def page(shared_driver: WebDriver, static_site: str) -> Iterator[tuple[WebDriver, str]]:
    shared_driver.get(static_site + "verify.html")
    yield shared_driver, static_site


def browser_report(page: tuple[WebDriver, str], path: Path) -> dict[str, Any]:
    driver, base = page
    text = path.read_text(encoding="utf-8")
    report: dict[str, Any] = run_module(
        driver, base + "verify.js", "return m.verifyExport(args[0]);", text
    )
    assert "thrown" not in report, report
    return report


def command_line_report(path: Path) -> dict[str, Any]:
    return Cli("sqlite://").verify_file(path)


@pytest.mark.parametrize("export", ["halfway", "ended"])
def test_an_honest_export_verifies_in_the_browser_with_the_command_lines_counts(
    page: tuple[WebDriver, str], played: PlayedSession, export: str
) -> None:
    path: Path = getattr(played, export)
    expected = command_line_report(path)
    report = browser_report(page, path)
    assert {key: report[key] for key in SAME_COUNTS} == {key: expected[key] for key in SAME_COUNTS}
    assert report["ok"] is True
    assert report["chain_links"] == report["events"]
    assert report["manual_dice"] == 11


def test_after_the_end_every_seeded_die_is_derived_again(
    page: tuple[WebDriver, str], played: PlayedSession
) -> None:
    report = browser_report(page, played.ended)
    assert report["commitments_checked"] == 2
    assert report["not_yet_verifiable_dice"] == 0 and report["unrevealed_epochs"] == []
    halfway = browser_report(page, played.halfway)
    assert halfway["unrevealed_epochs"] == [2] and halfway["not_yet_verifiable_dice"] > 0
    assert report["dice_verified"] == halfway["dice_verified"] + halfway["not_yet_verifiable_dice"]


Records = list[RecordedEvent]


def index_of(records: Records, event_type: str, test: Callable[[RecordedEvent], bool]) -> int:
    return next(i for i, r in enumerate(records) if r.event_type == event_type and test(r))


def with_data(record: RecordedEvent, **changes: object) -> RecordedEvent:
    return replace(record, data={**record.data, **changes})


def change_a_face(records: Records) -> Records:
    """Turn a seeded die to another face and recompute every hash after it, as a forger would."""
    i = index_of(records, "DiceRolled", lambda r: r.data["dice"][0]["source"] == "seeded")
    dice = [dict(die) for die in records[i].data["dice"]]
    dice[0]["face"] = dice[0]["face"] % dice[0]["sides"] + 1
    return rechain([*records[:i], with_data(records[i], dice=dice), *records[i + 1 :]], i)


def break_a_link(records: Records) -> Records:
    i = index_of(records, "CheckResolved", lambda r: True)
    return [*records[:i], replace(records[i], prev_hash="ab" * 32), *records[i + 1 :]]


def remove_an_event(records: Records) -> Records:
    # The explosion of a typed-in six: the same event in every run, whatever the seeded dice.
    i = index_of(records, "DieExploded", lambda r: r.data["die"]["source"] == "manual")
    return records[:i] + records[i + 1 :]


def edit_without_rehashing(records: Records) -> Records:
    i = index_of(records, "PlayerJoined", lambda r: True)
    return [*records[:i], with_data(records[i], name="mallory"), *records[i + 1 :]]


def commit_to_another_seed(records: Records) -> Records:
    i = index_of(records, "SeedCommitted", lambda r: r.data["epoch"] == 1)
    wrong = with_data(records[i], commitment="0f" * 32)
    return rechain([*records[:i], wrong, *records[i + 1 :]], i)


TAMPERING: dict[str, tuple[Callable[[Records], Records], str]] = {
    "a die face changed, hashes recomputed": (change_a_face, "seed gives"),
    "a broken chain link": (break_a_link, "prev_hash does not match"),
    "an event removed": (remove_an_event, "follows version"),
    "an event edited, hashes left": (edit_without_rehashing, "hash does not match"),
    "a wrong seed commitment": (commit_to_another_seed, "does not match its commitment"),
}


def tampered_copy(played: PlayedSession, name: str, folder: Path) -> Path:
    tamper, _ = TAMPERING[name]
    path = folder / "tampered.jsonl"
    write_export(tamper(list(read_export(played.ended))), path)
    return path


@pytest.mark.parametrize("name", TAMPERING)
def test_a_tampered_export_fails_at_the_event_the_command_line_names(
    page: tuple[WebDriver, str], played: PlayedSession, name: str, tmp_path: Path
) -> None:
    path = tampered_copy(played, name, tmp_path)
    expected = command_line_report(path)["first_failure"]
    report = browser_report(page, path)
    assert report["ok"] is False
    # The browser checks the chain, the epochs and the dice; the command line also decides
    # each command again under the rules, so it may name an earlier event of the same
    # damage (the command a removed event belonged to), never a later one.
    first, named = report["first_failure"], expected
    assert first["reason"] and named["position"] <= first["position"]
    if name != "an event removed":
        assert first["position"] == named["position"]
    assert TAMPERING[name][1] in report["first_failure"]["reason"]


def verdict(driver: WebDriver) -> str:
    wait = WebDriverWait(driver, 30)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#verify-result [data-ok]"))
    return str(driver.find_element(By.ID, "verify-result").text)


def count_shown(driver: WebDriver, key: str) -> int:
    return int(driver.find_element(By.CSS_SELECTOR, f'[data-count="{key}"]').text)


def test_a_person_verifies_a_file_on_the_page(
    driver: WebDriver, static_site: str, played: PlayedSession
) -> None:
    driver.get(static_site + "verify.html")
    driver.find_element(By.ID, "export-file").send_keys(str(played.ended))
    driver.find_element(By.CSS_SELECTOR, "#verify-form button[type=submit]").click()
    text = verdict(driver)
    expected = command_line_report(played.ended)
    assert "Verified in this browser" in text
    assert played.session_id in text
    assert count_shown(driver, "dice_verified") == expected["dice_verified"]
    assert count_shown(driver, "manual_dice") == expected["manual_dice"]
    assert count_shown(driver, "events") == expected["events"]


def test_the_page_names_the_first_bad_event_of_a_tampered_file(
    driver: WebDriver, static_site: str, played: PlayedSession, tmp_path: Path
) -> None:
    path = tampered_copy(played, "a die face changed, hashes recomputed", tmp_path)
    first = command_line_report(path)["first_failure"]
    driver.get(static_site + "verify.html")
    driver.find_element(By.ID, "export-file").send_keys(str(path))
    driver.find_element(By.CSS_SELECTOR, "#verify-form button[type=submit]").click()
    text = verdict(driver)
    assert "Verification failed" in text
    where = f"position {first['position']} (version {first['stream_version']})"
    assert f"First bad event: {where}: " in text


def test_asking_without_a_file_says_what_to_do(driver: WebDriver, static_site: str) -> None:
    driver.get(static_site + "verify.html")
    driver.find_element(By.CSS_SELECTOR, "#verify-form button[type=submit]").click()
    result = driver.find_element(By.ID, "verify-result")
    WebDriverWait(driver, 10).until(lambda d: result.text)
    assert result.text == "Choose an exported session file (.jsonl) first."


def test_a_page_given_its_export_url_verifies_what_its_own_server_serves(
    open_browser: OpenBrowser, played: PlayedSession, tmp_path: Path
) -> None:
    copy_static(tmp_path)
    page = (tmp_path / "static" / "verify.html").read_text(encoding="utf-8")
    served = page.replace(
        '<form id="verify-form" class="verify-form">',
        '<form id="verify-form" class="verify-form" data-export-url="../api/export.jsonl">',
    )
    (tmp_path / "static" / "session.html").write_text(served, encoding="utf-8")
    (tmp_path / "api").mkdir()
    shutil.copyfile(played.ended, tmp_path / "api" / "export.jsonl")
    driver = open_browser(width=360)
    with serve_folder(tmp_path) as url:
        driver.get(url + "static/session.html")
        driver.find_element(By.ID, "verify-served").click()
        assert "Verified in this browser" in verdict(driver)
        origins = driver.execute_script(
            "return performance.getEntriesByType('resource').map((e) => new URL(e.name).origin);"
        )
    assert origins and set(origins) == {url.rstrip("/")}
    assert driver.execute_script("return document.documentElement.scrollWidth") <= 360


CORPUS_CASES: list[dict[str, Any]] = json.loads((CORPUS / INDEX).read_text())["cases"]
# The page does not resolve rolls again (docs/verification.md, "In a browser").
OUTCOME_ONLY = {"raised-total.jsonl", "swapped-winner.jsonl"}


@pytest.mark.parametrize("case", CORPUS_CASES, ids=[case["file"] for case in CORPUS_CASES])
def test_the_page_reaches_the_conformance_corpus_verdicts_it_checks(
    page: tuple[WebDriver, str], case: dict[str, Any]
) -> None:
    report = browser_report(page, CORPUS / case["file"])
    expected = case["first_failure"]
    if expected is None or case["file"] in OUTCOME_ONLY:
        assert report["ok"] is True, report["first_failure"]
        return
    found = report["first_failure"]
    assert (found["position"], found["stream_version"]) == (
        expected["position"],
        expected["stream_version"],
    )
    assert expected["reason"] in found["reason"]

"""The browser verifies a played session as ``diceledger verify --file`` does, without trusting it.

The page runs the command's own Python under Pyodide. A session of every kind of roll is
played through the command line and exported; in real Chromium the page's verifier must
give the command line's whole JSON report on the honest exports, on the suite's tampered
copies and on every case of the conformance corpus.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from diceledger.conformance import INDEX
from tests.conformance.corpus import FOLDER as CORPUS
from tests.web.browser import link_static, run_module, serve_folder
from tests.web.conftest import OpenBrowser
from tests.web.sessions import Cli, PlayedSession, play_session
from tests.web.tampering import TAMPERING, tampered_copy

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
def page(shared_driver: WebDriver, verifier_site: str) -> Iterator[tuple[WebDriver, str]]:
    shared_driver.get(verifier_site + "verify.html")
    yield shared_driver, verifier_site


def browser_report(page: tuple[WebDriver, str], path: Path) -> dict[str, Any]:
    """Verify in the page as ``verify --file`` does on this machine: with the proof beside
    the export, and its key pinned, as this machine's key store knows the key that signed."""
    driver, base = page
    text = path.read_text(encoding="utf-8")
    held: dict[str, Any] = {}
    proof = Path(f"{path}.proof.json")
    if proof.exists():
        held = {"proof": proof.read_text(), "keys": json.loads(proof.read_text())["verifier_keys"]}
    report: dict[str, Any] = run_module(
        driver, base + "verify-python.js", "return m.verifyInBrowser(args[0], args[1]);", text, held
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
    report = browser_report(page, path)
    assert report == command_line_report(path)
    assert report["ok"] is True
    assert report["manual_dice"] == 11


def test_after_the_end_every_seeded_die_is_derived_again(
    page: tuple[WebDriver, str], played: PlayedSession
) -> None:
    report = browser_report(page, played.ended)
    assert report["not_yet_verifiable_dice"] == 0 and report["unrevealed_epochs"] == []
    halfway = browser_report(page, played.halfway)
    assert halfway["unrevealed_epochs"] == [2] and halfway["not_yet_verifiable_dice"] > 0
    assert report["dice_verified"] == halfway["dice_verified"] + halfway["not_yet_verifiable_dice"]


@pytest.mark.parametrize("name", TAMPERING)
def test_a_tampered_export_fails_at_the_event_the_command_line_names(
    page: tuple[WebDriver, str], played: PlayedSession, name: str, tmp_path: Path
) -> None:
    path = tampered_copy(played, name, tmp_path)
    report = browser_report(page, path)
    assert report == command_line_report(path)
    assert report["ok"] is False
    assert TAMPERING[name][1] in report["first_failure"]["reason"]


def verdict(driver: WebDriver) -> str:
    wait = WebDriverWait(driver, 180)  # the first verify loads Pyodide (13 MB)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#verify-result [data-ok]"))
    return str(driver.find_element(By.ID, "verify-result").text)


def count_shown(driver: WebDriver, key: str) -> int:
    return int(driver.find_element(By.CSS_SELECTOR, f'[data-count="{key}"]').text)


def test_a_person_verifies_a_file_on_the_page(
    driver: WebDriver, verifier_site: str, played: PlayedSession
) -> None:
    driver.get(verifier_site + "verify.html")
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
    driver: WebDriver, verifier_site: str, played: PlayedSession, tmp_path: Path
) -> None:
    path = tampered_copy(played, "a die face changed, hashes recomputed", tmp_path)
    first = command_line_report(path)["first_failure"]
    driver.get(verifier_site + "verify.html")
    driver.find_element(By.ID, "export-file").send_keys(str(path))
    driver.find_element(By.CSS_SELECTOR, "#verify-form button[type=submit]").click()
    text = verdict(driver)
    assert "Verification failed" in text
    where = f"position {first['position']} (version {first['stream_version']})"
    assert f"First bad event: {where}: " in text


def test_asking_without_a_file_says_what_to_do(driver: WebDriver, verifier_site: str) -> None:
    driver.get(verifier_site + "verify.html")
    driver.find_element(By.CSS_SELECTOR, "#verify-form button[type=submit]").click()
    result = driver.find_element(By.ID, "verify-result")
    WebDriverWait(driver, 10).until(lambda d: result.text)
    assert result.text == "Choose an exported session file (.jsonl) first."


def test_a_page_given_its_export_url_verifies_what_its_own_server_serves(
    open_browser: OpenBrowser, pyodide_available: None, played: PlayedSession, tmp_path: Path
) -> None:
    link_static(tmp_path)
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


@pytest.mark.parametrize("case", CORPUS_CASES, ids=[case["file"] for case in CORPUS_CASES])
def test_the_page_reaches_every_conformance_verdict_of_the_command_line(
    page: tuple[WebDriver, str], case: dict[str, Any]
) -> None:
    path = CORPUS / case["file"]
    report = browser_report(page, path)
    assert report == command_line_report(path)
    expected = case["first_failure"]
    if expected is None:
        assert report["ok"] is True, report["first_failure"]
        return
    found = report["first_failure"]
    assert (found["position"], found["stream_version"]) == (
        expected["position"],
        expected["stream_version"],
    )
    assert expected["reason"] in found["reason"]


def test_a_file_chosen_with_its_proof_and_a_kept_checkpoint_is_held_to_them(
    driver: WebDriver, verifier_site: str, played: PlayedSession, tmp_path: Path
) -> None:
    kept = tmp_path / "ann.checkpoint"
    table = Cli(f"sqlite:///{played.ended.parent / 'table.sqlite'}")
    table.run("ann", "checkpoint", played.session_id, "-o", str(kept))

    def verify(export: Path) -> str:
        driver.get(verifier_site + "verify.html")
        driver.find_element(By.ID, "export-file").send_keys(str(export))
        driver.find_element(By.ID, "proof-file").send_keys(f"{export}.proof.json")
        driver.find_element(By.ID, "kept-file").send_keys(str(kept))
        driver.find_element(By.CSS_SELECTOR, "#verify-form button[type=submit]").click()
        return verdict(driver)

    text = verify(played.ended)
    # No key is pinned on this page: the proof's own key signed, so not anchored (exit 3).
    assert "Consistent, but not anchored" in text
    assert "Held to: the log and kept checkpoints." in text
    assert "\u2714 the export's proof: " in text and "\u2714 a kept checkpoint: " in text
    # The halfway export lacks the events the kept checkpoint signed after it.
    text = verify(played.halfway)
    assert "Verification failed" in text
    assert "\u2718 a kept checkpoint: " in text

"""The conformance corpus: committed as generated, shipped, and every verdict reached by verify."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from diceledger.cli.main import cli
from diceledger.conformance import INDEX, corpus_folder
from diceledger.infra.app.event_schema import events_schema
from tests.conformance.corpus import FOLDER, files

CASES: list[dict[str, Any]] = json.loads((FOLDER / INDEX).read_text())["cases"]


def verify(path: Path, *options: str) -> tuple[int, str]:
    result = CliRunner(env={"NO_COLOR": "1"}).invoke(cli, ["verify", "--file", str(path), *options])
    return result.exit_code, result.stdout


def test_the_committed_corpus_is_what_the_generator_writes() -> None:
    generated = files()
    committed = {p.name: p.read_text(encoding="utf-8") for p in FOLDER.glob("*.json*")}
    assert sorted(committed) == sorted(generated), "run `python -m tests.conformance.corpus`"
    for name, text in generated.items():
        assert committed[name] == text, f"{name} differs: run `python -m tests.conformance.corpus`"


def test_the_installed_package_holds_every_file_the_index_names() -> None:
    folder = corpus_folder()
    assert folder.joinpath(INDEX).is_file() and folder.joinpath("README.md").is_file()
    assert all(folder.joinpath(case["file"]).is_file() for case in CASES)


def test_the_corpus_has_honest_logs_undetectable_changes_and_each_kind_of_failure() -> None:
    verdicts = {case["file"]: case["ok"] for case in CASES}
    assert verdicts["honest-ended.jsonl"] and verdicts["honest-v1.jsonl"]
    assert verdicts["truncated.jsonl"] and verdicts["relabelled-rehashed.jsonl"]
    assert sum(not ok for ok in verdicts.values()) >= 10


@pytest.mark.parametrize("case", CASES, ids=[case["file"] for case in CASES])
def test_verify_reaches_the_verdict_the_corpus_states(case: dict[str, Any]) -> None:
    code, output = verify(FOLDER / case["file"], "--json")
    report = json.loads(output)
    assert (code, report["ok"]) == (case["exit_code"], case["ok"])
    expected = case["first_failure"]
    if expected is None:
        assert report["first_failure"] is None
        assert {key: report[key] for key in case["counts"]} == case["counts"]
        return
    found = report["first_failure"]
    where = (found["position"], found["stream_version"])
    assert where == (expected["position"], expected["stream_version"]), found
    assert expected["reason"] in found["reason"]


def test_every_line_of_the_honest_logs_fits_the_published_schema() -> None:
    validator = Draft202012Validator(events_schema())
    for case in (c for c in CASES if c["ok"]):
        lines = (FOLDER / case["file"]).read_text(encoding="utf-8").splitlines()
        assert [e.message for line in lines for e in validator.iter_errors(json.loads(line))] == []


def test_verify_says_it_trusted_the_log_alone() -> None:
    code, output = verify(FOLDER / "truncated.jsonl")
    assert code == 0
    assert "checked against: the log alone" in output
    assert "only a kept checkpoint (--checkpoint) shows nothing was cut from its end" in output
    _, as_json = verify(FOLDER / "truncated.jsonl", "--json")
    assert json.loads(as_json)["anchor"] == "log-alone"


def test_an_unrevealed_epoch_verifies_with_its_dice_counted_as_not_yet_verifiable() -> None:
    code, output = verify(FOLDER / "truncated.jsonl")
    case = next(c for c in CASES if c["file"] == "truncated.jsonl")
    assert code == 0 and case["counts"]["unrevealed_epochs"] == [2]
    waiting = case["counts"]["not_yet_verifiable_dice"]
    assert waiting > 0
    assert f"{waiting} not yet verifiable" in output
    assert "unrevealed seed epochs: 2 (`diceledger seed reveal` or session end)" in output
    assert "dice of epoch 2 are checked once its seed is revealed" in output

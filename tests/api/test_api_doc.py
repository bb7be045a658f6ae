"""docs/api.md says what the code does: its problem types and its limits."""

from __future__ import annotations

import inspect
import re

from fastapi import FastAPI

from diceledger.web import asgi
from diceledger.web.context import Settings
from diceledger.web.problems import (
    BAD_REQUEST,
    FALLBACK,
    PROBLEMS,
    RATE_LIMITED,
    TOO_LARGE,
    VALIDATION,
)
from tests.api.conftest import Api
from tests.api.route_table import API_DOC, markdown_table, served_routes


def test_the_docs_list_every_problem_type_with_its_status() -> None:
    documented = {
        (int(status), kind.strip("`")) for status, kind, *_ in markdown_table(("status", "type"))
    }
    problems = [problem for _, problem in PROBLEMS]
    problems += [FALLBACK, BAD_REQUEST, TOO_LARGE, RATE_LIMITED, VALIDATION]
    assert documented == {(problem.status, problem.type) for problem in problems}


def test_the_docs_give_each_limit_its_variable_and_default() -> None:
    rows = markdown_table(("limit", "default", "environment variable"))
    documented = {
        variable.strip("`"): default for _, default, variable, *_ in rows if "`" in variable
    }
    settings = Settings()
    assert documented == {
        "DICELEDGER_MAX_BODY_BYTES": f"{settings.max_body_bytes // 1024} KiB",
        "DICELEDGER_ROLLS_PER_MINUTE": str(settings.rolls_per_minute),
        "DICELEDGER_REDEMPTIONS_PER_MINUTE": str(settings.redemptions_per_minute),
        "DICELEDGER_STREAMS_PER_TOKEN": str(settings.streams_per_token),
    }
    read = set(re.findall(r'"(DICELEDGER_\w+)"', inspect.getsource(asgi)))
    assert set(documented) <= read


def test_every_path_template_the_docs_name_is_a_path_the_app_serves(api: Api) -> None:
    # A link the pages answer, named as a client is to build it (`/join/{code}`, say).
    text = API_DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"`(/[^`\s]*\{[^`\s]*)`", text))
    app = api.client.app
    assert isinstance(app, FastAPI)
    served = {path for _, path in served_routes(app.routes)}
    assert sorted(named - served) == []

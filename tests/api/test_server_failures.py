"""How the server answers what goes wrong on its side: 405 with Allow, 500 with a request id.

A 500 is a real uvicorn's answer on a kept-alive connection: the connection must serve the
next request, and the server's log must hold the request id the client was given.
"""

from __future__ import annotations

import http.client
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi import FastAPI

from diceledger.domain.errors import DiceSourceError
from diceledger.domain.verification.report import Report
from diceledger.web.context import WebServices
from tests.api.conftest import Api, Table
from tests.web.live_server import live_server


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/api/v1/sessions", {"POST"}),
        ("PUT", "/api/v1/sessions/{sid}/rolls", {"POST"}),
        ("POST", "/api/v1/sessions/{sid}/verify", {"GET"}),
        ("PATCH", "/healthz", {"GET"}),
        # One path, a route per method: Allow names both, not the first route's alone.
        ("DELETE", "/api/v1/sessions/{sid}/characters", {"GET", "POST"}),
    ],
)
def test_a_method_the_route_does_not_take_is_answered_405_with_allow(
    api: Api, table: Table, method: str, path: str, allowed: set[str]
) -> None:
    answer = api.client.request(method, path.format(sid=table.sid))
    assert answer.status_code == 405
    assert answer.headers["content-type"] == "application/problem+json"
    assert {m.strip() for m in answer.headers["allow"].split(",")} == allowed


class Failure(RuntimeError):
    """What the route made to fail raises: no error of the tree, a bug."""


FAILURES: dict[str, tuple[Exception, str]] = {
    "bug": (Failure("disk on fire: dlt_secret"), "/problems/internal"),
    "tree": (DiceSourceError("the random source failed"), "/problems/dice-source"),
}


@contextmanager
def failing_verify(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> Iterator[http.client.HTTPConnection]:
    """Serve the app with its verify route made to fail; yield one kept-alive connection."""

    def fail(session_id: str) -> Report:
        raise error

    def customise(app: FastAPI, services: WebServices) -> None:
        monkeypatch.setattr(services.app, "verify_session", fail)

    with live_server(sqlite_url, customise=customise) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        try:
            yield connection
        finally:
            connection.close()


def exchange(
    connection: http.client.HTTPConnection,
    method: str,
    path: str,
    token: str | None = None,
    body: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], dict[str, object]]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    payload = None if body is None else json.dumps(body)
    connection.request(method, path, body=payload, headers=headers)
    answer = connection.getresponse()
    document = json.loads(answer.read())
    assert isinstance(document, dict)
    return answer.status, {k.lower(): v for k, v in answer.getheaders()}, document


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_a_500_keeps_the_connection_and_names_the_request_the_log_holds(
    sqlite_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    kind: str,
) -> None:
    error, problem_type = FAILURES[kind]
    caplog.set_level(logging.ERROR, logger="diceledger.error")
    with failing_verify(sqlite_url, monkeypatch, error) as connection:
        _, _, opened = exchange(connection, "POST", "/api/v1/sessions", body={"title": "T"})
        path = f"/api/v1/sessions/{opened['session_id']}/verify"
        status, headers, problem = exchange(connection, "GET", path, str(opened["gm_token"]))
        assert (status, problem["type"]) == (500, problem_type)
        assert headers["content-type"] == "application/problem+json"
        assert headers.get("connection", "").lower() != "close"
        assert "x-content-type-options" in headers  # the security headers, as on any answer
        request_id = problem["request_id"]
        assert isinstance(request_id, str) and len(request_id) >= 16
        # The same connection serves the next request.
        again, _, health = exchange(connection, "GET", "/healthz")
        assert (again, health) == (200, {"status": "ok"})
    logged = [r for r in caplog.records if r.name == "diceledger.error"]
    assert len(logged) == 1 and request_id in logged[0].getMessage()
    assert "dlt_secret" not in str(problem["detail"])  # the cause stays in the log
    if kind == "bug":
        assert logged[0].exc_info is not None

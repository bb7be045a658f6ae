"""A roll sent while the session is busy goes through after the wait the server names.

Another writer holding the session's lock makes the server answer 503 session-busy with
Retry-After. The table's page sends the same roll again, with the same Idempotency-Key,
after that wait: the player sees their roll, once, and no error. Here a PostgreSQL
connection of the test holds the session's lock row until the server has refused the page
at least once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING

import psycopg
import pytest
from fastapi import FastAPI, Request, Response
from sqlalchemy.engine import make_url

from diceledger.infra.store.database import upgrade
from diceledger.web.context import WebServices
from tests.api.test_busy_session import TAKE_LOCK
from tests.web.live_server import LiveServer, live_server
from tests.web.people import Person
from tests.web.test_gm_panel_live import open_session

if TYPE_CHECKING:
    from tests.web.conftest import OpenBrowser


class BusyAnswers:
    """Counts the 503 session-busy answers the server has sent."""

    def __init__(self) -> None:
        self.count = 0

    def watch(self, app: FastAPI, _services: WebServices) -> None:
        @app.middleware("http")
        async def count_busy(
            request: Request, call_next: Callable[[Request], Awaitable[Response]]
        ) -> Response:
            response = await call_next(request)
            if response.status_code == 503:
                self.count += 1
            return response


@pytest.fixture
def busy() -> BusyAnswers:
    return BusyAnswers()


@pytest.fixture
def postgres(postgres_url: str) -> str:
    upgrade(postgres_url)
    return postgres_url


@pytest.fixture
def server(postgres: str, busy: BusyAnswers) -> Iterator[LiveServer]:
    with live_server(postgres, customise=busy.watch) as running:
        yield running


def dsn(url: str) -> str:
    """Return a libpq connection string for a SQLAlchemy PostgreSQL URL (its schema too)."""
    parsed = make_url(url)
    server = f"host={parsed.host} port={parsed.port} dbname={parsed.database}"
    return f"{server} user={parsed.username} options={parsed.query['options']}"


def test_a_roll_while_the_session_is_busy_lands_once_without_an_error(
    open_browser: OpenBrowser, server: LiveServer, postgres: str, busy: BusyAnswers
) -> None:
    gm = Person("mira", open_browser(width=360, height=740), server.url)
    open_session(gm)
    gm.wait_log_loaded()
    gm.fill_roll("check", "1d20+2", target="12")

    with psycopg.connect(dsn(postgres)) as holder:
        for statement in TAKE_LOCK:
            holder.execute(statement, (gm.session_id,))
        try:
            gm.submit_roll()
            gm.until(lambda: busy.count >= 1, "the server to refuse the busy session")
        finally:
            holder.rollback()

    text = gm.wait_roll(1, "mira check", "vs 12")
    assert "1d20+2" in text
    assert not gm.all("#roll-2"), "the retried roll was recorded twice"
    assert "busy" not in gm.text("#roll-form").lower()

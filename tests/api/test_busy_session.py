"""A session whose lock someone else holds answers 503 with Retry-After, never a hang.

The per-session ledger lock is a PostgreSQL advisory lock, which any role that may
connect can take: here a role with no grant at all holds it, as a stranger could.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx2
import psycopg
import pytest
from sqlalchemy.engine import make_url

from diceledger.infra.store.session_lock import SESSION_LOCK, lock_key
from tests.api.conftest import Api, build_api, open_table
from tests.infra.support import database_url

CHECK = {"kind": "check", "expression": "1d20+5", "target": 15}
# Not a timing assertion: a bound so that a roll which hangs fails the test, not the run.
HANG_BOUND_SECONDS = 60
KEY = "ann-check-1"  # the retry Retry-After asks for is the same request, same key


@pytest.fixture
def postgres_api(request: pytest.FixtureRequest) -> Iterator[Api]:
    url = database_url("postgres", request)
    assert url is not None
    built = build_api(url)
    try:
        with built.client:
            yield built
    finally:
        built.services.app.close()
        built.db.dispose()


@pytest.fixture
def stranger(postgres_api: Api) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """Yield a connection of a role that holds no grant, only PUBLIC's CONNECT."""
    parsed = make_url(postgres_api.url)
    server = f"host={parsed.host} port={parsed.port} dbname={parsed.database}"
    role = f"stranger_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(f"{server} user={parsed.username}", autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
    try:
        with psycopg.connect(f"{server} user={role}", autocommit=True) as connection:
            yield connection
    finally:
        with psycopg.connect(f"{server} user={parsed.username}", autocommit=True) as admin:
            admin.execute(f"DROP ROLE {role}")


def roll(api: Api, sid: str, token: str) -> httpx2.Response:
    answer: httpx2.Response = api.post(f"/api/v1/sessions/{sid}/rolls", token, CHECK, KEY)
    return answer


def roll_while_held(
    api: Api, holder: psycopg.Connection[tuple[object, ...]], sid: str, token: str
) -> httpx2.Response:
    """Roll while ``holder`` holds the session's lock; release it whatever happens."""
    lock = lock_key(SESSION_LOCK, sid)
    holder.execute("SELECT pg_advisory_lock(%s)", (lock,))
    pool = ThreadPoolExecutor(1)
    try:
        pending = pool.submit(roll, api, sid, token)
        try:
            answer = pending.result(timeout=HANG_BOUND_SECONDS)
        finally:
            holder.execute("SELECT pg_advisory_unlock(%s)", (lock,))
        return answer
    finally:
        pool.shutdown()


@pytest.mark.postgres
def test_a_held_session_lock_answers_503_with_retry_after_and_frees_after_release(
    postgres_api: Api, stranger: psycopg.Connection[tuple[object, ...]]
) -> None:
    api = postgres_api
    table = open_table(api)
    before = api.services.app.session("mira", table.sid).version
    busy = roll_while_held(api, stranger, table.sid, table.ann)
    assert busy.status_code == 503
    assert busy.headers["content-type"] == "application/problem+json"
    assert busy.json()["type"] == "/problems/session-busy"
    assert busy.headers["retry-after"] == "1"
    assert api.services.app.session("mira", table.sid).version == before
    # Released, the same request rolls: the busy answer changed nothing, key included.
    after = roll(api, table.sid, table.ann)
    assert after.status_code == 201 and "idempotency-replayed" not in after.headers
    assert api.services.app.session("mira", table.sid).version > before

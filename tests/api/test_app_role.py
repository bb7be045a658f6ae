"""The grants of docs/storage.md are enough for `diceledger serve` to run a whole session."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from diceledger.infra.store.database import upgrade
from tests.api.conftest import Api, build_api, open_table
from tests.conftest import PG_SERVER

STORAGE_DOC = Path(__file__).resolve().parents[2] / "docs" / "storage.md"


def documented_statements() -> list[str]:
    """Return the statements of docs/storage.md's block of grants, one line each."""
    text = STORAGE_DOC.read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```sql\n(.*?)```", text, flags=re.S) if "GRANT" in b)
    code = "\n".join(line.split("--")[0] for line in block.splitlines())
    return [" ".join(s.split()) for s in code.split(";") if s.strip()]


def documented_grants(role: str, schema: str) -> list[str]:
    """Return the grants of docs/storage.md on the tables, for ``role`` on ``schema``."""
    # The run's database is shared by every test, each in a schema of its own: what the
    # block says of the database itself is tried on a database of its own (below).
    return [
        s.replace("diceledger_app", role).replace("SCHEMA public", f"SCHEMA {schema}")
        for s in documented_statements()
        if "ON DATABASE" not in s
    ]


@pytest.fixture
def app_role_api(postgres_url: str) -> Iterator[Api]:
    """Yield the API served by a role holding exactly the documented grants."""
    upgrade(postgres_url)
    parsed = make_url(postgres_url)
    schema = str(parsed.query["options"]).split("=")[-1]
    role = f"diceledger_app_{uuid.uuid4().hex[:8]}"
    admin_dsn = f"host={parsed.host} port={parsed.port} user={parsed.username} "
    admin_dsn += f"dbname={parsed.database} options={parsed.query['options']}"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        for statement in documented_grants(role, schema):
            admin.execute(statement)
    api = build_api(parsed.set(username=role).render_as_string(hide_password=False))
    try:
        with api.client:
            yield api
    finally:
        api.services.app.close()
        api.db.dispose()
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f"DROP OWNED BY {role}")
            admin.execute(f"DROP ROLE {role}")


def test_the_documented_grants_let_the_server_play_a_whole_session(app_role_api: Api) -> None:
    api = app_role_api
    table = open_table(api)
    base = f"/api/v1/sessions/{table.sid}"
    check = {"kind": "check", "expression": "1d20+5", "target": 15}
    waiting = api.roll(table.sid, table.ann, {"kind": "damage", "expression": "2d6", "reroll": 1})
    roll_id = waiting.json()["roll_id"]
    steps = [
        api.post(f"{base}/rolls/{roll_id}/reroll", table.ann, {"dice": [0]}, key="r1"),
        api.post(f"{base}/rolls/{roll_id}/dispute", table.bob, {"reason": "hm"}, key="d1"),
        api.post(f"{base}/rolls/{roll_id}/ruling", table.gm, {"outcome": "upheld"}),
        # a refusal with a key: its claim on the key is dropped again (DELETE)
        api.post(f"{base}/rolls/{roll_id}/ruling", table.ann, {"outcome": "voided"}, key="x"),
        api.roll(table.sid, table.bob, check),
        api.get(f"{base}/stats", table.ann),
        api.get(f"{base}/replay", table.ann),
        api.post(f"{base}/members/bob/co-gm", table.gm),
        api.post(f"{base}/members/ann/revoke", table.gm),
        api.post(f"{base}/seed/reveal", table.gm),
        api.post(f"{base}/end", table.bob),
        api.get(f"{base}/verify", table.gm),
    ]
    statuses = [answer.status_code for answer in steps]
    assert statuses == [200, 201, 200, 403, 201, 200, 200, 200, 200, 200, 200, 200]
    assert steps[-1].json()["ok"] and steps[-1].json()["not_yet_verifiable_dice"] == 0


@pytest.mark.postgres
def test_the_documented_grants_let_no_other_role_connect_and_take_a_session_lock() -> None:
    """Only the owner and the app role may connect: other roles cannot even try a lock."""
    suffix = uuid.uuid4().hex[:8]
    database, app, stranger = f"grants_{suffix}", f"app_{suffix}", f"stranger_{suffix}"
    on_database = [
        s.replace("diceledger_app", app).replace("DATABASE diceledger ", f"DATABASE {database} ")
        for s in documented_statements()
        if "ON DATABASE" in s
    ]
    with psycopg.connect(f"{PG_SERVER} dbname=test", autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {database}")
        admin.execute(f"CREATE ROLE {app} LOGIN")
        admin.execute(f"CREATE ROLE {stranger} LOGIN")
    try:
        with psycopg.connect(f"{PG_SERVER} dbname={database}", autocommit=True) as owner:
            for statement in on_database:
                owner.execute(statement)
        with psycopg.connect(f"{PG_SERVER} dbname={database} user={app}") as connection:
            assert connection.execute("SELECT pg_try_advisory_lock(1)").fetchone() == (True,)
        with pytest.raises(psycopg.OperationalError, match="permission denied"):
            psycopg.connect(f"{PG_SERVER} dbname={database} user={stranger}").close()
    finally:
        with psycopg.connect(f"{PG_SERVER} dbname=test", autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {database}")
            admin.execute(f"DROP ROLE IF EXISTS {app}")
            admin.execute(f"DROP ROLE IF EXISTS {stranger}")

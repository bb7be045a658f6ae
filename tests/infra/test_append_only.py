"""The database itself refuses to change or remove a recorded event, even in raw SQL."""

from __future__ import annotations

import sqlite3
import uuid
from contextlib import closing

import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from diceledger.domain.hashchain import verify_chain
from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.support import new_event


def _seed(url: str) -> None:
    engine = make_engine(url)
    SqlEventStore(engine).append("s1", [new_event(), new_event()], expected_version=0)
    engine.dispose()


@pytest.mark.parametrize(
    ("statement", "verb"),
    [("UPDATE events SET event_type = 'Forged'", "UPDATE"), ("DELETE FROM events", "DELETE")],
)
def test_sqlite_refuses_update_and_delete_on_events(
    sqlite_url: str, statement: str, verb: str
) -> None:
    _seed(sqlite_url)
    path = make_url(sqlite_url).database
    assert path is not None
    with closing(sqlite3.connect(path)) as connection:
        with pytest.raises(sqlite3.DatabaseError, match=f"append-only: {verb} is not allowed"):
            connection.execute(statement)
        assert connection.execute("SELECT count(*) FROM events").fetchone() == (2,)
        types = {row[0] for row in connection.execute("SELECT event_type FROM events")}
        assert types == {"DiceRolled"}


def _psycopg_connect(url: str) -> psycopg.Connection:
    parsed = make_url(url)
    options = parsed.query["options"]
    assert isinstance(options, str)
    return psycopg.connect(
        host=parsed.host,
        port=parsed.port,
        user=parsed.username,
        dbname=parsed.database,
        options=options,
        autocommit=True,
    )


@pytest.mark.parametrize(
    ("statement", "verb"),
    [
        ("UPDATE events SET event_type = 'Forged'", "UPDATE"),
        ("DELETE FROM events", "DELETE"),
        ("TRUNCATE events", "TRUNCATE"),
    ],
)
def test_postgres_refuses_update_delete_and_truncate_on_events(
    postgres_url: str, statement: str, verb: str
) -> None:
    upgrade(postgres_url)
    _seed(postgres_url)
    with _psycopg_connect(postgres_url) as connection:
        with pytest.raises(psycopg.Error, match=f"append-only: {verb} is not allowed"):
            connection.execute(statement)
        assert connection.execute("SELECT count(*) FROM events").fetchone() == (2,)


def test_an_app_role_with_select_and_insert_appends_but_cannot_change_events(
    postgres_url: str,
) -> None:
    upgrade(postgres_url)
    parsed = make_url(postgres_url)
    schema = str(parsed.query["options"]).split("=")[-1]
    role = f"diceledger_app_{uuid.uuid4().hex[:8]}"
    with _psycopg_connect(postgres_url) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        admin.execute(f"GRANT SELECT, INSERT ON events TO {role}")
        admin.execute(f"GRANT SELECT ON alembic_version TO {role}")
    app_url = parsed.set(username=role).render_as_string(hide_password=False)
    engine = make_engine(app_url)
    try:
        store = SqlEventStore(engine)
        store.append("s1", [new_event(), new_event()], expected_version=0)
        store.append("s1", [new_event()], expected_version=2)
        assert verify_chain(store.read_all()) is None
        with pytest.raises(sa.exc.ProgrammingError, match="permission denied"):
            with engine.begin() as connection:
                connection.execute(sa.text("UPDATE events SET event_type = 'Forged'"))
    finally:
        engine.dispose()
        with _psycopg_connect(postgres_url) as admin:
            admin.execute(f"DROP OWNED BY {role}")
            admin.execute(f"DROP ROLE {role}")

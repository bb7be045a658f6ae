"""The migrations build exactly the tables the code uses, and run down and up again."""

from __future__ import annotations

import multiprocessing
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from diceledger.domain.errors import SchemaOutdatedError, StoreUnavailableError
from diceledger.domain.hashchain import ChainHead, verify_chain
from diceledger.infra.store.all_tables import metadata
from diceledger.infra.store.database import (
    current_revision,
    downgrade,
    ensure_schema,
    head_revision,
    make_engine,
    open_engine,
    upgrade,
)
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events
from diceledger.infra.store.sealing import seal
from diceledger.infra.store.sql import SqlEventStore
from tests.infra import workers
from tests.infra.support import new_event


@pytest.fixture
def url(sql_url: str) -> str:
    return sql_url


def _differences(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return list(compare_metadata(MigrationContext.configure(connection), metadata))
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_autogenerate_finds_no_difference_between_migrations_and_metadata(url: str) -> None:
    assert _differences(url) == []


def test_the_comparison_notices_a_table_the_migrations_lack(url: str) -> None:
    extra = sa.Table("not_migrated", metadata, sa.Column("id", sa.Integer, primary_key=True))
    try:
        assert [diff[0] for diff in _differences(url)] == ["add_table"]  # type: ignore[index]
    finally:
        metadata.remove(extra)


def test_upgrade_downgrade_upgrade_leaves_a_working_append_only_store(url: str) -> None:
    downgrade(url, "base")
    assert _tables(url) <= {"alembic_version"}
    upgrade(url)
    assert {"events", "seed_vault"} <= _tables(url)
    assert _differences(url) == []
    engine = make_engine(url)
    try:
        store = SqlEventStore(engine)
        store.append("s1", [new_event()], expected_version=0)
        with pytest.raises(sa.exc.DatabaseError, match="append-only"):
            with engine.begin() as connection:
                connection.execute(sa.text("DELETE FROM events"))
        assert store.current_version("s1") == 1
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()


def test_the_embedded_sqlite_default_is_upgraded_on_first_use(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.sqlite'}"
    engine = open_engine(url)
    try:
        assert current_revision(engine) == head_revision()
        assert SqlEventStore(engine).append("s1", [new_event()], expected_version=0)
    finally:
        engine.dispose()


def test_processes_opening_a_new_sqlite_file_at_once_all_find_it_upgraded(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        revisions = pool.map(workers.open_and_report_revision, [url] * 3)
    assert revisions == [head_revision()] * 3


def test_an_empty_postgres_database_asks_for_db_upgrade(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    try:
        with pytest.raises(SchemaOutdatedError, match="code needs"):
            ensure_schema(engine, postgres_url)
    finally:
        engine.dispose()


def test_a_database_from_a_newer_release_is_refused_clearly(url: str) -> None:
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999_future'"))
        with pytest.raises(StoreUnavailableError, match="9999_future, which this diceledger"):
            ensure_schema(engine, url)
    finally:
        engine.dispose()


def test_a_postgres_database_behind_the_code_names_both_revisions(postgres_url: str) -> None:
    upgrade(postgres_url, "0001_events")
    engine = make_engine(postgres_url)
    try:
        with pytest.raises(SchemaOutdatedError) as raised:
            ensure_schema(engine, postgres_url)
        message = str(raised.value)
        assert f"at 0001_events, code needs {head_revision()}" in message
        assert "\n" not in message
        upgrade(postgres_url)
        ensure_schema(engine, postgres_url)
    finally:
        engine.dispose()


def test_events_recorded_before_0011_are_read_first_and_readers_resume_among_them(
    url: str,
) -> None:
    downgrade(url, "0010_discord")
    engine = make_engine(url)
    try:
        older = seal("s1", [new_event(), new_event()], ChainHead(), datetime.now(UTC))
        with engine.begin() as connection:  # the store of that release, one append
            connection.execute(events.insert(), [to_row(record) for record in older])
        upgrade(url)
        store = SqlEventStore(engine)
        (newer,) = store.append("s1", [new_event()], expected_version=2)
        read = list(store.read_all())
        assert [r.event_id for r in read] == [*(r.event_id for r in older), newer.event_id]
        assert list(store.read_all(after_position=read[0].position)) == read[1:]
        assert verify_chain(read) is None
    finally:
        engine.dispose()

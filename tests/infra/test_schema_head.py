"""The schema revision the code checks at start-up is Alembic's head."""

from __future__ import annotations

from diceledger.infra.store.database import (
    SCHEMA_HEAD,
    current_revision,
    head_revision,
    make_engine,
)


def test_the_start_up_schema_check_names_alembics_head() -> None:
    assert SCHEMA_HEAD == head_revision()


def test_current_revision_reads_an_upgraded_database_without_alembic(sqlite_url: str) -> None:
    assert current_revision(make_engine(sqlite_url)) == SCHEMA_HEAD


def test_an_empty_database_has_no_revision(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert current_revision(make_engine(f"sqlite:///{tmp_path / 'empty.sqlite'}")) is None

"""Databases a careless operator points at: each is one line, exit 1, never a traceback.

A SQLite file cut short or overwritten, a file that was never a database, a URL naming a
driver the store is not written for, a database a newer release upgraded, and one that
may be read but not written (where listing sessions and statistics still work).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result

from diceledger.cli.main import cli
from diceledger.domain.errors import ReadOnlyError, SchemaNewerError, StoreUnavailableError
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.projections.directory import SessionDirectory, folded_entries
from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import SeedVault

COMMANDS = [
    ("session", "list"),
    ("session", "show", "some-session"),
    ("stats",),
    ("replay", "some-session"),
    ("verify", "some-session"),
    ("db", "current"),
    ("db", "upgrade"),
    ("projections", "status"),
]


def run(url: str, *args: str) -> Result:
    return CliRunner(env={"NO_COLOR": "1"}).invoke(cli, ["--db", url, "--as", "gm", *args])


def one_line_error(result: Result) -> str:
    """Assert a clean refusal: exit 1, one line on stderr, nothing else; return the line."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: ")
    return line


def played_file(tmp_path: Path) -> Path:
    path = tmp_path / "played.sqlite"
    url = f"sqlite:///{path}"
    assert run(url, "session", "start", "Tomb").exit_code == 0
    engine = make_engine(url)
    with engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return path


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("damage", ["text", "zeroed header"])
def test_a_file_that_is_no_database_is_one_line(
    tmp_path: Path, command: tuple[str, ...], damage: str
) -> None:
    path = played_file(tmp_path)
    if damage == "text":
        path.write_text("these are my session notes, not a database\n" * 100)
    else:
        path.write_bytes(b"\0" * 100 + path.read_bytes()[100:])
    line = one_line_error(run(f"sqlite:///{path}", *command))
    assert "file is not a database" in line


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_database_file_cut_short_is_one_line_where_it_cannot_be_read(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    path = played_file(tmp_path)
    path.write_bytes(path.read_bytes()[: 3 * 4096])  # the first pages only
    result = run(f"sqlite:///{path}", *command)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    if result.exit_code != 0:
        assert "database" in one_line_error(result)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg2://postgres@127.0.0.1/test",
        "postgresql+asyncpg://postgres@127.0.0.1/test",
        "sqlite+pysqlcipher:///x.sqlite",
    ],
)
def test_a_driver_the_store_is_not_written_for_names_the_supported_ones(url: str) -> None:
    with pytest.raises(StoreUnavailableError) as raised:
        make_engine(url)
    message = str(raised.value)
    assert "unsupported database driver" in message and "psycopg 3" in message
    assert "sqlite:///" in message and "\n" not in message
    assert "Error: unsupported database driver" in one_line_error(run(url, "session", "list"))


def test_a_database_of_a_newer_release_says_so_and_refuses_an_upgrade(sql_url: str) -> None:
    engine = make_engine(sql_url)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '0042_future'"))
    engine.dispose()
    current = run(sql_url, "db", "current")
    assert current.exit_code == 0
    assert "0042_future (newer than this diceledger" in current.stdout
    assert "behind" not in current.stdout
    line = one_line_error(run(sql_url, "db", "upgrade"))
    assert "0042_future, which this diceledger does not know" in line
    with pytest.raises(SchemaNewerError):
        upgrade(sql_url)
    engine = make_engine(sql_url)
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == (
            "0042_future"
        )
    engine.dispose()


def read_only_sqlite(tmp_path: Path) -> tuple[str, str]:
    """Return (writable URL, read-only URL) of one file with a session in it."""
    path = played_file(tmp_path)
    writable = f"sqlite:///{path}"
    copy = tmp_path / "read-only.sqlite"
    shutil.copyfile(path, copy)
    return writable, f"sqlite:///file:{copy}?mode=ro&uri=true"


def test_session_list_and_stats_work_on_a_read_only_sqlite_file(tmp_path: Path) -> None:
    writable, read_only = read_only_sqlite(tmp_path)
    expected = run(writable, "session", "list", "--json")
    listed = run(read_only, "session", "list", "--json")
    assert listed.exit_code == 0, listed.output
    assert listed.stdout == expected.stdout and "Tomb" in listed.stdout
    stats = run(read_only, "stats", "--json")
    assert stats.exit_code == 0, stats.output
    refused = one_line_error(run(read_only, "session", "start", "Another"))
    assert refused == "Error: the database is read-only: attempt to write a readonly database"


def test_the_listing_works_in_a_read_only_postgres_transaction(postgres_url: str) -> None:
    upgrade(postgres_url)
    writable = make_engine(postgres_url)
    read_only = make_engine(postgres_url + "%20-cdefault_transaction_read_only%3Don")
    try:
        store = SqlEventStore(writable)
        SessionService(store, SeedVault(writable)).start("Tomb", "gm")
        reader = SqlEventStore(read_only)
        with pytest.raises(ReadOnlyError):
            SessionDirectory(read_only, reader).catch_up()
        assert [entry.title for entry in folded_entries(reader)] == ["Tomb"]
        with pytest.raises(ReadOnlyError):
            SessionService(reader, SeedVault(read_only)).start("Another", "gm")
        assert store.head_position() == 3
    finally:
        writable.dispose()
        read_only.dispose()

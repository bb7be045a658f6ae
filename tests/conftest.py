"""Shared database fixtures: a fresh SQLite file, and a fresh place on the local PostgreSQL.

PostgreSQL tests are skipped when the server at 127.0.0.1:5432 is down, unless
REQUIRE_POSTGRES=1 is set (as in CI): then they fail instead.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sqlite3
import tempfile
import tomllib
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
PG_SERVER = os.environ.get("DICELEDGER_TEST_PG", "host=127.0.0.1 port=5432 user=postgres")
PG_URL_BASE = "postgresql+psycopg://postgres@127.0.0.1:5432"

# Hypothesis' per-example deadline is a timing assertion: on a loaded CI machine it fails
# correct code. Properties are checked for what they compute, never for how fast.
settings.register_profile("diceledger", deadline=None)
settings.load_profile("diceledger")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop at once, saying why, when the editable install lags the checkout.

    The install is a tree of links (setuptools' strict mode) to the files there were when it
    was laid: a module added since would fail to import in some test far away. `make` lays
    the tree again whenever a file comes or goes; a bare `pytest` cannot.
    """
    missing = modules_missing_from_install()
    if missing:
        shown = ", ".join(missing[:3]) + (" ..." if len(missing) > 3 else "")
        pytest.exit(f"the editable install lacks {shown}: run `make .venv/.installed`", 4)


def modules_missing_from_install() -> list[str]:
    """Return the package's modules in the checkout that the installed package lacks."""
    spec = importlib.util.find_spec("diceledger")
    assert spec is not None and spec.submodule_search_locations is not None
    installed = [Path(place) for place in spec.submodule_search_locations]
    if ROOT in (place.resolve() for place in installed):
        return []  # the checkout itself is the installed package
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return sorted(
        str(module.relative_to(ROOT))
        for name in packages["packages"]
        for module in ROOT.joinpath(*name.split(".")[1:]).glob("*.py")
        if not any((place / module.relative_to(ROOT)).exists() for place in installed)
    )


def pytest_configure(config: pytest.Config) -> None:
    """Keep every key file a test makes (seed key, signing key) out of the user's own data.

    The data directory moves to a fresh temporary folder for the run, subprocesses
    included, and key paths set in the caller's environment are ignored.
    """
    folder = tempfile.mkdtemp(prefix="diceledger-test-data-")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    os.environ["XDG_DATA_HOME"] = folder
    for name in ("DICELEDGER_SEED_KEY", "DICELEDGER_SIGNING_KEY"):
        os.environ.pop(name, None)


@pytest.fixture(autouse=True)
def _kept_checkpoints_per_test(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Give each test its own kept checkpoints and signed heads (subprocesses included).

    The CLI keeps the latest checkpoint of every session it sees, per signing key; the
    run shares one key, so two tests' sessions with one id would look like a fork.
    """
    monkeypatch.setenv("DICELEDGER_CHECKPOINTS", str(tmp_path_factory.mktemp("kept")))
    # The same for the server's side: the heads it signed, kept beside the shared key.
    heads = tmp_path_factory.mktemp("heads") / "signed-heads"
    monkeypatch.setenv("DICELEDGER_SIGNED_HEADS", str(heads))


def postgres_required() -> bool:
    """Tell whether a missing PostgreSQL server must fail the run rather than skip."""
    return os.environ.get("REQUIRE_POSTGRES") == "1"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "postgres_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)


def _server_problem() -> str | None:
    import psycopg

    try:
        with psycopg.connect(f"{PG_SERVER} dbname=test connect_timeout=3"):
            return None
    except psycopg.Error as error:
        return str(error).splitlines()[0]


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """Create one scratch database for the run and drop it at the end; yield its name."""
    import psycopg

    problem = _server_problem()
    if problem is not None:
        message = f"PostgreSQL is not available: {problem}"
        if postgres_required():
            pytest.fail(message)
        pytest.skip(message)
    name = f"diceledger_t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(f"{PG_SERVER} dbname=test", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(f"{PG_SERVER} dbname=test", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_url(postgres_database: str) -> Iterator[str]:
    """Yield the URL of a fresh, empty schema in the run's PostgreSQL database.

    Each test gets its own schema (through the connection's search_path), which is much
    faster than a database per test and just as isolated for unqualified table names.
    """
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    conninfo = f"{PG_SERVER} dbname={postgres_database}"
    with psycopg.connect(conninfo, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL_BASE}/{postgres_database}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(conninfo, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(scope="session")
def _upgraded_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from diceledger.infra.store.database import upgrade

    path = tmp_path_factory.mktemp("template") / "template.sqlite"
    upgrade(f"sqlite:///{path}")
    # Fold the WAL into the main file so that a plain copy is complete.
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def sqlite_url(tmp_path: Path, _upgraded_sqlite_template: Path) -> str:
    """Return the URL of a fresh SQLite file in tmp_path, already at the schema head."""
    path = tmp_path / "diceledger.sqlite"
    shutil.copyfile(_upgraded_sqlite_template, path)
    return f"sqlite:///{path}"

"""Where the database is, how to connect to it, and whether its schema is current.

Driver errors a user can meet (unreachable, wrong URL, locked, no permission) become one-line
StoreUnavailableError messages here, in ``translate_errors`` (and, for a SQLite writer that
queued past the busy timeout, in ``one_writer``, with the same words), and nowhere else.
"""

from __future__ import annotations

import functools
import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from importlib import resources
from pathlib import Path
from typing import Any

import platformdirs
import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.engine import Connection, Engine

from diceledger.domain.errors import (
    ReadOnlyError,
    SchemaNewerError,
    SchemaOutdatedError,
    StoreUnavailableError,
)

ENV_VAR = "DICELEDGER_DB"
DEFAULT_FILE = "diceledger.sqlite"
SQLITE_BUSY_TIMEOUT_MS = 10_000
LOCKED = "the database is locked by another writer past the busy timeout; try again"
PG_CONNECT_TIMEOUT_S = 5
WRITE_OPTION = "diceledger_write"
# A read that is one statement: on SQLite it runs in autocommit, its own snapshot, no BEGIN.
ONE_STATEMENT_OPTION = "diceledger_one_statement"
# The drivers the store is written and tested for, by backend.
DRIVERS = {"sqlite": "pysqlite", "postgresql": "psycopg"}
SUPPORTED = "sqlite:///PATH, or postgresql://... (psycopg 3; postgresql+psycopg:// alike)"


def resolve_url(explicit: str | None = None) -> str:
    """Return the database URL: the explicit one, else DICELEDGER_DB, else the default file."""
    if explicit:
        return normalize_url(explicit)
    from_env = os.environ.get(ENV_VAR)
    if from_env:
        return normalize_url(from_env)
    folder = Path(platformdirs.user_data_dir("diceledger"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / DEFAULT_FILE}"


def normalize_url(url: str) -> str:
    """Point plain ``postgresql://`` (and ``postgres://``) URLs at the psycopg 3 driver."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def is_sqlite(url: str) -> bool:
    """Tell whether a URL names a SQLite database."""
    return url.startswith("sqlite")


def make_engine(url: str, busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS) -> Engine:
    """Build an engine: SQLite in WAL with full sync and a busy timeout, or PostgreSQL."""
    url = normalize_url(url)
    with translate_errors(url):
        parsed = sa.make_url(url)
        backend = parsed.get_backend_name()
        if backend not in DRIVERS:
            # The schema, the append lock and the upserts are written for these two only.
            raise StoreUnavailableError(
                f"unsupported database URL {safe_url(url)}: use sqlite:/// or postgresql://"
            )
        if parsed.get_driver_name() != DRIVERS[backend]:
            raise StoreUnavailableError(
                f"unsupported database driver '{parsed.get_driver_name()}' in {safe_url(url)}; "
                f"the supported URLs are {SUPPORTED}"
            )
        if backend == "sqlite":
            engine = sa.create_engine(parsed)
            _configure_sqlite(engine, int(busy_timeout_ms))
            if parsed.database not in (None, "", ":memory:"):
                _queue_writers(engine, parsed.database, busy_timeout_ms)
            return engine
        from diceledger.infra.store.xid import teach_reflection

        teach_reflection()
        connect_args: dict[str, Any] = {"connect_timeout": PG_CONNECT_TIMEOUT_S}
        return sa.create_engine(parsed, connect_args=connect_args)


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below issue BEGIN instead of the driver.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        cursor.execute("PRAGMA journal_mode = WAL")
        # FULL syncs the WAL on every commit: an acknowledged append survives power loss.
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # A writer takes the write lock at BEGIN, so a second writer waits on the busy
        # timeout instead of failing when it upgrades a read lock mid-transaction.
        options = connection.get_execution_options()
        if options.get(ONE_STATEMENT_OPTION, False):
            return  # the statement is its own transaction; the ROLLBACK after it sends nothing
        writing = options.get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")


# The connection a request's reads and writes share (``one_connection``), by engine.
_SHARED: ContextVar[tuple[Engine, Connection] | None] = ContextVar(
    "diceledger_shared_connection", default=None
)


@contextmanager
def one_connection(engine: Engine) -> Iterator[None]:
    """Let the block's reads and its transaction on ``engine`` share one pooled connection.

    On PostgreSQL a request's reads (its Idempotency-Key, the session's new events) and
    its write transaction then check out one connection between them instead of one each:
    fewer waits on the pool, which has fewer connections than a worker has threads. A read
    made while the transaction is open takes a connection of its own, as it did before,
    so it sees what other transactions committed and nothing of this one's. SQLite keeps a
    connection per use: its checkouts cost no network.
    """
    if engine.dialect.name != "postgresql" or _shared(engine) is not None:
        yield
        return
    with engine.connect() as connection:
        token = _SHARED.set((engine, connection.execution_options(isolation_level="AUTOCOMMIT")))
        try:
            yield
        finally:
            _SHARED.reset(token)


def _shared(engine: Engine) -> Connection | None:
    shared = _SHARED.get()
    if shared is None or shared[0] is not engine or shared[1].in_transaction():
        return None
    return shared[1]


@contextmanager
def read_connection(engine: Engine) -> Iterator[Connection]:
    """Open a connection for reads that are one statement each (the shared one if free).

    On PostgreSQL it runs in autocommit: a read is then its one round trip, where a
    transaction would add a BEGIN before it and a ROLLBACK after (a roll makes several such
    reads). A statement still sees one snapshot. On SQLite, likewise, no BEGIN is sent:
    the driver runs the statement in autocommit, and the ROLLBACK at the end sends
    nothing; a BEGIN there costs no round trip but a statement's work in Python.
    """
    shared = _shared(engine)
    if shared is not None:
        try:
            yield shared
        finally:
            shared.commit()  # ends SQLAlchemy's own autobegun block; nothing to send
        return
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        else:
            connection = connection.execution_options(**{ONE_STATEMENT_OPTION: True})
        yield connection


@contextmanager
def write_connection(engine: Engine) -> Iterator[Connection]:
    """Open a connection whose transactions take the write lock at BEGIN on SQLite (the
    shared one, out of autocommit for the block, if free)."""
    shared = _shared(engine)
    if shared is not None:
        shared.execution_options(isolation_level=shared.default_isolation_level)
        try:
            yield shared
        finally:
            if shared.in_transaction():
                shared.rollback()  # the block's transaction ended without its end: undo
            shared.execution_options(isolation_level="AUTOCOMMIT")
        return
    with one_writer(engine), engine.connect() as connection:
        yield connection.execution_options(**{WRITE_OPTION: True})


# The writer queue of each SQLite file (one lock, shared by every engine on the file), and
# each engine's place in it: that lock and how long its writers wait there. Resolved once,
# when the engine is made, so a write only looks its engine up.
_WRITERS: dict[str, threading.RLock] = {}
_WRITERS_GUARD = threading.Lock()
_WRITER_TURNS: weakref.WeakKeyDictionary[Engine, tuple[threading.RLock, float]] = (
    weakref.WeakKeyDictionary()
)


def _queue_writers(engine: Engine, database: str, busy_timeout_ms: int) -> None:
    path = os.path.realpath(database)
    with _WRITERS_GUARD:
        lock = _WRITERS.setdefault(path, threading.RLock())
    _WRITER_TURNS[engine] = (lock, busy_timeout_ms / 1000)


@contextmanager
def one_writer(engine: Engine) -> Iterator[None]:
    """On a SQLite file, let one thread of the process write at a time; the others queue.

    SQLite has one writer per database anyway. Without the queue, every other writer
    waits in SQLite's busy handler, which sleeps and retries (up to 100 ms a try) and so
    serves no one in order: under many clients most of a worker's threads sleep there
    holding a pooled connection, and the tail grows with the clients. The lock hands the
    database to the next writer as soon as the last one is done. Writers in other
    processes still meet the busy handler.
    """
    turn = _WRITER_TURNS.get(engine)
    if turn is None:  # not a SQLite file
        yield
        return
    lock, wait_s = turn
    # Re-entrant, so a thread nesting two writes meets SQLite's own lock as before; and
    # bounded by the busy timeout, with the busy handler's error, so no writer waits longer.
    if not lock.acquire(timeout=wait_s):
        raise StoreUnavailableError(LOCKED)
    try:
        yield
    finally:
        lock.release()


@contextmanager
def translate_errors(url: str | sa.URL | None = None) -> Iterator[None]:
    """Turn driver errors a user can meet into one-line StoreUnavailableError messages."""
    try:
        yield
    except exc.ArgumentError as error:
        raise StoreUnavailableError(f"not a usable database URL: {_first_line(error)}") from None
    except exc.NoSuchModuleError as error:
        raise StoreUnavailableError(f"unsupported database URL: {_first_line(error)}") from None
    except exc.IntegrityError:
        raise  # a constraint the store and the vault answer themselves
    except (exc.DatabaseError, exc.InterfaceError) as error:
        # Unreachable, locked, not a database at all or a damaged one, no privilege.
        if _read_only(error):
            raise ReadOnlyError(f"the database is read-only: {_first_line(error.orig)}") from None
        if _sqlstate(error) == "42501":  # insufficient_privilege
            raise StoreUnavailableError(f"permission denied: {_first_line(error.orig)}") from None
        raise StoreUnavailableError(_describe(error, url)) from None


def _read_only(error: exc.DBAPIError) -> bool:
    # SQLite on a file it may not write; PostgreSQL in a read-only transaction (25006).
    return "readonly database" in str(error.orig) or _sqlstate(error) == "25006"


def _describe(error: exc.DBAPIError, url: str | sa.URL | None) -> str:
    reason = _first_line(error.orig)
    state = _sqlstate(error)
    if state == "55P03":  # lock_not_available
        return "timed out waiting for another writer's lock; try again"
    if "database is locked" in reason:
        return LOCKED
    return f"cannot use the database {safe_url(url)}: {reason}"


def _sqlstate(error: exc.DBAPIError) -> str | None:
    return getattr(error.orig, "sqlstate", None)


def _first_line(error: object) -> str:
    text = str(error).strip()
    return text.splitlines()[0].strip() if text else type(error).__name__


def safe_url(url: str | sa.URL | None) -> str:
    if url is None:
        return "(unknown)"
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except exc.ArgumentError:
        return "(unparsable URL)"


def alembic_config(url: str, connection: Connection | None = None) -> Any:
    """Build the Alembic configuration in code, pointing at the packaged migrations."""
    from alembic.config import Config

    config = Config()
    # The migrations ship inside the package: found the same way in a checkout and a wheel.
    config.set_main_option("script_location", str(resources.files("diceledger.migrations")))
    config.attributes["url"] = normalize_url(url)
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Upgrade the database at ``url`` to ``revision`` (the code's head by default)."""
    from alembic import command

    _refuse_newer(url)
    with translate_errors(url):
        command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str) -> None:
    """Downgrade the database at ``url`` to ``revision`` (``base`` removes every table)."""
    from alembic import command

    _refuse_newer(url)
    with translate_errors(url):
        command.downgrade(alembic_config(url), revision)


def _refuse_newer(url: str) -> None:
    """Refuse a database whose revision is unknown here: a newer release wrote it."""
    engine = make_engine(url)
    try:
        current = current_revision(engine)
    finally:
        engine.dispose()
    if current is not None and current not in known_revisions():
        raise newer_schema(current)


def newer_schema(current: str) -> SchemaNewerError:
    """Return the error for a database at a revision this release does not know."""
    return SchemaNewerError(
        f"database schema is at {current}, which this diceledger does not know "
        f"(its newest is {head_revision()}): a newer release wrote it; use a newer diceledger"
    )


def schema_status(current: str | None) -> str:
    """Say how a database's revision stands against the code: current, behind or newer."""
    if current == head_revision():
        return "up to date"
    if current is not None and current not in known_revisions():
        return f"newer than this diceledger, which knows up to {head_revision()}"
    return f"behind; the code needs {head_revision()}"


# The newest migration's revision. Checking a database against it needs no Alembic import,
# which would cost every command a large share of its start-up;
# tests/infra/test_schema_head.py keeps it equal to Alembic's head.
SCHEMA_HEAD = "0016_session_locks"


def current_revision(engine: Engine) -> str | None:
    """Return the schema revision the database is at (None when it has none)."""
    with translate_errors(engine.url), engine.connect() as connection:
        if not sa.inspect(connection).has_table("alembic_version"):
            return None
        rows = connection.exec_driver_sql("SELECT version_num FROM alembic_version").all()
    return rows[0][0] if rows else None


@functools.cache
def head_revision() -> str:
    """Return the schema revision this code needs."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None, "migrations/versions holds no revision"
    return head


@functools.cache
def known_revisions() -> frozenset[str]:
    """Return every schema revision the code's migrations define."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return frozenset(script.revision for script in scripts.walk_revisions())


def ensure_schema(engine: Engine, url: str) -> None:
    """Make sure the schema is current: upgrade SQLite by itself, refuse a stale server."""
    current = current_revision(engine)
    if current == SCHEMA_HEAD:
        return
    head = head_revision()
    if current is not None and current not in known_revisions():
        raise newer_schema(current)
    if is_sqlite(url):
        upgrade(url)
        return
    raise SchemaOutdatedError(
        f"database schema is at {current or 'no revision'}, code needs {head}"
    )


def open_engine(explicit_url: str | None = None) -> Engine:
    """Resolve the URL, connect, and make sure the schema is current (see ensure_schema)."""
    url = resolve_url(explicit_url)
    engine = make_engine(url)
    ensure_schema(engine, url)
    return engine

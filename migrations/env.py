"""Alembic environment: the URL resolves like the CLI's, the target is infra's metadata."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from diceledger.infra.store.all_tables import metadata
from diceledger.infra.store.database import WRITE_OPTION, make_engine, resolve_url

config = context.config


def _url() -> str:
    # Given in code by infra.store.database, else `alembic -x db=URL`, else DICELEDGER_DB or
    # the default.
    given = config.attributes.get("url") or context.get_x_argument(as_dictionary=True).get("db")
    return resolve_url(given)


def _run(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # One BEGIN IMMEDIATE around the whole run: two processes upgrading the same new
        # file on first use queue up, and the second finds the work done.
        connection = connection.execution_options(**{WRITE_OPTION: True})
    context.configure(
        connection=connection, target_metadata=metadata, transactional_ddl=True if sqlite else None
    )
    with context.begin_transaction():
        context.run_migrations()


def run_offline() -> None:
    """Print the SQL instead of running it."""
    context.configure(url=_url(), target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Run the migrations on the given connection, or on a fresh engine for the URL."""
    given: Connection | None = config.attributes.get("connection")
    if given is not None:
        _run(given)
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()

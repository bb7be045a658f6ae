"""A throw-away PostgreSQL database per benchmark run, created and dropped by the script."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

from diceledger.infra.store.database import upgrade

# The server's maintenance database, reached as a superuser (trust auth on the bench box).
ADMIN_ENV = "DICELEDGER_BENCH_PG"
DEFAULT_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
URL_BASE_ENV = "DICELEDGER_BENCH_PG_URL_BASE"
DEFAULT_URL_BASE = "postgresql+psycopg://postgres@127.0.0.1:5432"


def admin_conninfo() -> str:
    """Return the libpq connection string of the maintenance database."""
    return os.environ.get(ADMIN_ENV, DEFAULT_ADMIN)


def server_version() -> str:
    """Return the server's version string, e.g. ``15.20``."""
    with psycopg.connect(admin_conninfo(), connect_timeout=5) as connection:
        row = connection.execute("SHOW server_version").fetchone()
        return str(row[0]).split()[0] if row else "unknown"


@contextmanager
def temporary_database(purpose: str) -> Iterator[str]:
    """Create a database at the schema's head, yield its URL, drop it afterwards."""
    name = f"diceledger_bench_{purpose}_{secrets.token_hex(4)}"
    with psycopg.connect(admin_conninfo(), autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        url = f"{os.environ.get(URL_BASE_ENV, DEFAULT_URL_BASE)}/{name}"
        upgrade(url)
        yield url
    finally:
        with psycopg.connect(admin_conninfo(), autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

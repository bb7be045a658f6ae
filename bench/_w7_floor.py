"""W7's floor: the smallest FastAPI endpoint that stores a row, served by uvicorn like ours.

`POST /rows` inserts one ~300-byte JSON row into a one-table database and commits, with the
driver alone (sqlite3 in WAL with synchronous=FULL, as diceledger's store runs; or psycopg),
one connection per thread of the route threadpool. No log line, no authentication, no
idempotency record, no hash chain, no rules. Served by W7 with
`python -m uvicorn --factory _w7_floor:create --app-dir bench`, the database named by
W7_FLOOR_DB (a sqlite3 file path, or a libpq URL).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel
from starlette.responses import Response

DB_ENV = "W7_FLOOR_DB"
JSON = "application/json"
TABLE = "CREATE TABLE IF NOT EXISTS floor_rows (id {key}, data TEXT NOT NULL)"


class Rows:
    """One connection per thread to the floor's database."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.local = threading.local()
        self.postgres = target.startswith("postgresql://")
        connection = self.connect()
        key = "BIGSERIAL PRIMARY KEY" if self.postgres else "INTEGER PRIMARY KEY"
        connection.execute(TABLE.format(key=key))
        connection.commit()

    def connect(self) -> Any:
        if self.postgres:
            import psycopg

            return psycopg.connect(self.target)
        connection = sqlite3.connect(self.target, check_same_thread=False, timeout=10)
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        return connection

    def insert(self, data: str) -> int:
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = self.local.connection = self.connect()
        mark = "%s" if self.postgres else "?"
        cursor = connection.execute(f"INSERT INTO floor_rows (data) VALUES ({mark})", (data,))
        connection.commit()
        return int(cursor.rowcount)


class Row(BaseModel):
    """The request body: any JSON object, stored as it came."""

    data: dict[str, Any]


def create() -> FastAPI:
    """Build the floor app on the database named by W7_FLOOR_DB."""
    rows = Rows(os.environ[DB_ENV])
    app = FastAPI()

    @app.get("/healthz")
    def healthz() -> Response:
        return Response('{"status":"ok"}', media_type="application/json")

    @app.post("/rows", status_code=201)
    def add(row: Row) -> Response:  # a plain def runs in the threadpool, as our routes do
        inserted = rows.insert(json.dumps(row.data))
        return Response(f'{{"inserted":{inserted}}}', status_code=201, media_type=JSON)

    return app


def serve(port: int, workers: int) -> None:
    """Serve the floor as ``diceledger serve`` serves: uvicorn, h11 without Nagle's delay."""
    import uvicorn

    from diceledger.cli.serve_protocol import NoDelayH11Protocol

    uvicorn.run(
        "_w7_floor:create",
        factory=True,
        host="127.0.0.1",
        port=port,
        workers=workers,
        http=NoDelayH11Protocol,
        app_dir=os.path.dirname(os.path.abspath(__file__)),
        log_level="warning",
        access_log=False,
    )


if __name__ == "__main__":
    import sys

    serve(int(sys.argv[1]), int(sys.argv[2]))

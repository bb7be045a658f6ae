"""The two SQLite peers of W3: raw sqlite3 (the limit) and eventsourcing's recorder.

Both write the same ~300-byte event data as diceledger and persist it durably: WAL and
synchronous=FULL, the pragmas ``infra.store.database.make_engine`` sets. Neither computes a hash
chain; diceledger's figure includes it.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

from diceledger.domain.records import NewEvent
from diceledger.infra.store.database import upgrade

DURABLE_PRAGMAS = (
    "PRAGMA busy_timeout = 10000",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = ON",
)
INSERT = (
    "INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version,"
    " data, meta, recorded_at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
NO_HASH = "0" * 64


def insert_batch(
    connection: sqlite3.Connection,
    stream_id: str,
    events: Sequence[NewEvent],
    expected_version: int,
    recorded_at: str,
) -> None:
    """Insert a batch as plain rows of the events table (no hash), in one transaction."""
    rows = [
        (
            event.event_id,
            stream_id,
            expected_version + offset,
            event.event_type,
            event.schema_version,
            json.dumps(event.data, separators=(",", ":")),
            json.dumps(event.meta, separators=(",", ":")),
            recorded_at,
            NO_HASH,
            NO_HASH,
        )
        for offset, event in enumerate(events, start=1)
    ]
    connection.execute("BEGIN IMMEDIATE")
    connection.executemany(INSERT, rows)
    connection.execute("COMMIT")


class RawSqliteAppender:
    """Insert rows into diceledger's own events table through sqlite3, nothing more.

    The table comes from the project's migrations, so indexes and triggers are the same;
    what is left out is everything diceledger adds on top (SQLAlchemy, the version check,
    the idempotency lookup, the hash chain).
    """

    def __init__(self, path: str) -> None:
        upgrade(f"sqlite:///{path}")
        self.connection = sqlite3.connect(path, isolation_level=None)
        for pragma in DURABLE_PRAGMAS:
            self.connection.execute(pragma)

    def append(self, stream_id: str, events: Sequence[NewEvent], expected_version: int) -> None:
        """Insert a batch in one BEGIN IMMEDIATE ... COMMIT transaction."""
        insert_batch(
            self.connection, stream_id, events, expected_version, datetime.now(UTC).isoformat()
        )

    def pragma(self, name: str) -> object:
        """Return the value of a pragma on this connection."""
        return self.connection.execute(f"PRAGMA {name}").fetchone()[0]

    def close(self) -> None:
        self.connection.close()


class EventsourcingAppender:
    """Insert through eventsourcing's SQLite application recorder (WAL, default sync)."""

    def __init__(self, path: str) -> None:
        self.datastore = SQLiteDatastore(db_name=path)
        self.recorder = SQLiteApplicationRecorder(self.datastore)
        self.recorder.create_table()
        self.originators: dict[str, uuid.UUID] = {}

    def append(self, stream_id: str, events: Sequence[NewEvent], expected_version: int) -> None:
        """Serialise the events to bytes as its mapper would, and insert them in one go."""
        originator = self.originators.setdefault(stream_id, uuid.uuid4())
        stored = [
            StoredEvent(
                originator_id=originator,
                originator_version=expected_version + offset,
                topic=f"diceledger.bench:{event.event_type}",
                state=json.dumps(
                    {"data": event.data, "meta": event.meta}, separators=(",", ":")
                ).encode(),
            )
            for offset, event in enumerate(events, start=1)
        ]
        self.recorder.insert_events(stored)

    def pragma(self, name: str) -> object:
        """Return the value of a pragma on one of the recorder's pooled connections."""
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(f"PRAGMA {name}")
            return cursor.fetchone()[0]

    def close(self) -> None:
        self.datastore.close()

"""The persisted session directory: `session list` without replaying every session.

Listing sessions by replaying each one costs time in proportion to every event ever
recorded; this projection keeps one row per session (and its members by name) and folds
only the events after its checkpoint, so a listing costs a query plus whatever was
appended since the last one. Only the event types the directory reads are decoded.
"""

from __future__ import annotations

from collections.abc import Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from domain.projections.directory import READS, DirectoryChanges, Entry
from infra.db import translate_errors
from infra.projections.checkpoints import (
    Overtaken,
    Progress,
    Status,
    advance,
    checkpoint_of,
    insert_for,
    set_checkpoint,
    writing,
)
from infra.projections.decoding import logged
from infra.projections.schema import session_directory, session_directory_members
from infra.store.port import EventStore

NAME = "sessions"
BATCH_SIZE = 5000
LOCK_KEY = 0x6469_6365_6469_7273  # "dicedirs": serialises directory updaters
_READ_TYPES = frozenset(cls.__name__ for cls in READS)


class SessionDirectory:
    """Keep the session directory in step with the event store."""

    def __init__(self, engine: Engine, store: EventStore, batch_size: int = BATCH_SIZE) -> None:
        self._engine = engine
        self._store = store
        self._batch_size = batch_size

    def checkpoint(self) -> int:
        """Return the last position the directory includes (0 before the first update)."""
        return checkpoint_of(self._engine, NAME)

    def status(self) -> Status:
        """Return the checkpoint and the store's head."""
        return Status(NAME, self.checkpoint(), self._store.head_position())

    def catch_up(self, progress: Progress | None = None) -> int:
        """Fold the events after the checkpoint into the directory; return how many."""
        start = self.checkpoint()
        changes, folded, last, count = DirectoryChanges(), 0, start, 0
        try:
            for record in self._store.read_all(start):
                if record.event_type in _READ_TYPES:
                    changes.apply(logged(record))
                last, count = record.position, count + 1
                if count == self._batch_size:
                    self._flush(changes, start, last)
                    start, folded, changes, count = last, folded + count, DirectoryChanges(), 0
                    if progress:
                        progress(self._batch_size)
            if count:
                self._flush(changes, start, last)
                folded += count
                if progress:
                    progress(count)
        except Overtaken:
            pass
        return folded

    def rebuild(self, progress: Progress | None = None) -> int:
        """Empty the directory and fold every event from position 0; return how many."""
        with writing(self._engine, LOCK_KEY) as connection:
            connection.execute(session_directory_members.delete())
            connection.execute(session_directory.delete())
            set_checkpoint(connection, NAME, 0)
        return self.catch_up(progress)

    def entries(self) -> Iterator[Entry]:
        """Yield every session in the order sessions were started (as of the checkpoint)."""
        members = (
            sa.select(sa.func.count())
            .where(session_directory_members.c.session_id == session_directory.c.session_id)
            .scalar_subquery()
        )
        query = sa.select(
            session_directory.c.session_id,
            session_directory.c.title,
            session_directory.c.gm,
            members,
            session_directory.c.rolls,
            session_directory.c.ended,
        ).order_by(session_directory.c.position)
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            for row in connection.execute(query):
                yield Entry(*row)

    def _flush(self, changes: DirectoryChanges, expected: int, position: int) -> None:
        with writing(self._engine, LOCK_KEY) as connection:
            advance(connection, NAME, expected, position)
            if changes:
                _write(connection, changes)


def _write(connection: Connection, changes: DirectoryChanges) -> None:
    """Add a batch's changes: new sessions first, so later parts find their rows."""
    if changes.started:
        insert = insert_for(connection)(session_directory)
        rows = [
            {
                "session_id": session_id,
                "title": started.title,
                "gm": started.gm,
                "rolls": 0,
                "ended": False,
                "position": started.position,
            }
            for session_id, started in changes.started.items()
        ]
        connection.execute(insert.on_conflict_do_nothing(), rows)
    if changes.joined:
        insert = insert_for(connection)(session_directory_members)
        rows = [{"session_id": s, "name": name} for s, name in changes.joined]
        connection.execute(insert.on_conflict_do_nothing(), rows)
    table = session_directory.c
    if changes.rolls:
        add_rolls = (
            session_directory.update()
            .where(table.session_id == sa.bindparam("target"))
            .values(rolls=table.rolls + sa.bindparam("added"))
        )
        rows = [{"target": s, "added": n} for s, n in changes.rolls.items()]
        connection.execute(add_rolls, rows)
    if changes.ended:
        connection.execute(
            session_directory.update()
            .where(table.session_id.in_(sorted(changes.ended)))
            .values(ended=True)
        )

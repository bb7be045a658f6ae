"""The persisted session directory: `session list` without replaying every session.

Listing sessions by replaying each one costs time in proportion to every event ever
recorded; this projection keeps one row per session (and its members by name) and folds
only the events after its checkpoint, so a listing costs a query plus whatever was
appended since the last one. Only the event types the directory reads are decoded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from diceledger.domain.projections.directory import (
    READS,
    DirectoryChanges,
    Entry,
    directory_changes,
)
from diceledger.domain.records import RecordedEvent
from diceledger.infra.projections.checkpoints import CheckpointedProjection, insert_for
from diceledger.infra.projections.decoding import logged
from diceledger.infra.projections.schema import session_directory, session_directory_members
from diceledger.infra.store.database import translate_errors
from diceledger.infra.store.port import EventStore

_READ_TYPES = frozenset(cls.__name__ for cls in READS)


class SessionDirectory(CheckpointedProjection[DirectoryChanges, RecordedEvent]):
    """Keep the session directory in step with the event store."""

    name = "sessions"
    lock_key = 0x6469_6365_6469_7273  # "dicedirs"
    tables = (session_directory_members, session_directory)

    def _read(self, after_position: int) -> Iterator[RecordedEvent]:
        return self._store.read_all(after_position)

    def _adder(self) -> Callable[[RecordedEvent, DirectoryChanges], None]:
        return _add

    def _new_batch(self) -> DirectoryChanges:
        return DirectoryChanges()

    def _write(self, connection: Connection, changes: DirectoryChanges) -> None:
        _write_changes(connection, changes)

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


def folded_entries(store: EventStore) -> list[Entry]:
    """Return the listing folded in memory from the whole log.

    For a database that can be read but not written, where the directory's tables
    cannot be brought up to date: the same listing, at the cost of reading every event.
    """
    records = (record for record in store.read_all() if record.event_type in _READ_TYPES)
    changes = directory_changes(logged(record) for record in records)
    members = Counter(session_id for session_id, _ in changes.joined)
    started = sorted(changes.started.items(), key=lambda item: item[1].position)
    return [
        Entry(sid, s.title, s.gm, members[sid], changes.rolls[sid], sid in changes.ended)
        for sid, s in started
    ]


def _add(record: RecordedEvent, changes: DirectoryChanges) -> None:
    if record.event_type in _READ_TYPES:  # decode only what the directory reads
        changes.apply(logged(record))


def _write_changes(connection: Connection, changes: DirectoryChanges) -> None:
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

"""What the database's owner can do past the application: drop triggers, forge, delete, rewind.

The tampering tests use these to play the one who holds the database (not the signing
key): every change here bypasses the application and its ledger.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from diceledger.domain.hashchain import ChainHead
from diceledger.domain.records import RecordedEvent
from diceledger.infra.ledger.schema import merkle_nodes, signed_checkpoints
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events
from diceledger.infra.store.sealing import seal
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.support import new_event

GUARDED = ("events", "merkle_nodes", "signed_checkpoints")


class Owner:
    """The database's owner, acting on one session with SQL alone."""

    def __init__(self, engine: Engine, session_id: str) -> None:
        self.engine = engine
        self.session_id = session_id
        self.store = SqlEventStore(engine)

    def drop_triggers(self) -> None:
        """Drop the append-only triggers, as the owner of the tables may."""
        with self.engine.begin() as connection:
            if connection.dialect.name == "sqlite":
                names = connection.scalars(
                    sa.text("SELECT name FROM sqlite_master WHERE type = 'trigger'")
                ).all()
                for name in names:
                    connection.execute(sa.text(f'DROP TRIGGER "{name}"'))
                return
            for table in GUARDED:
                trigger = "events_reject_change" if table == "events" else f"{table}_reject_change"
                connection.execute(sa.text(f"DROP TRIGGER {trigger} ON {table}"))

    def forge_insert(self, event_type: str = "RollDisputed", **data: object) -> RecordedEvent:
        """INSERT an event with a correct chain link and hash, past the application."""
        head = list(self.store.read_stream(self.session_id))[-1]
        data = data or {"roll_id": 1, "by": "ann", "reason": "forged"}
        (forged,) = seal(
            self.session_id,
            [new_event(event_type, **data)],
            ChainHead(head.stream_version, head.hash),
            datetime.now(UTC),
        )
        with self.engine.begin() as connection:
            connection.execute(events.insert(), [to_row(forged)])
        return forged

    def delete_after(self, version: int) -> None:
        """Delete the session's events after ``version`` (the triggers must be dropped)."""
        with self.engine.begin() as connection:
            connection.execute(
                events.delete().where(
                    events.c.stream_id == self.session_id, events.c.stream_version > version
                )
            )

    def rewind(self, version: int) -> None:
        """Cut the session, its tree and its checkpoints back to ``version`` events.

        What an owner who also holds the signing key does to drop rolls and sign again:
        the ledger then believes it never signed past ``version``.
        """
        self.delete_after(version)
        with self.engine.begin() as connection:
            connection.execute(
                signed_checkpoints.delete().where(
                    signed_checkpoints.c.stream_id == self.session_id,
                    signed_checkpoints.c.tree_size > version,
                )
            )
            mine = merkle_nodes.c.stream_id == self.session_id
            nodes = connection.execute(
                sa.select(merkle_nodes.c.level, merkle_nodes.c.node_index).where(mine)
            ).all()
            past = [
                (n.level, n.node_index) for n in nodes if (n.node_index + 1) << n.level > version
            ]
            if past:
                connection.execute(
                    merkle_nodes.delete().where(
                        mine, sa.tuple_(merkle_nodes.c.level, merkle_nodes.c.node_index).in_(past)
                    )
                )

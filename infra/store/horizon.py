"""Read the whole log on PostgreSQL so that no late commit is ever skipped.

Appends to different streams run in parallel, so positions (drawn from the identity
sequence when a row is inserted) do not become visible in order: an append may take
position 7 and commit after another took 8 and committed. A reader that resumed from 8
would never see 7.

Every row therefore carries its writing transaction's id (``xid8``). Ids are handed out in
increasing order, and ``pg_snapshot_xmin(pg_current_snapshot())`` is the oldest one still
in progress when the reading statement's snapshot was taken: every transaction below it
has ended, so the rows below it are all visible and no more can ever join them. Reading
only those rows, in ``(transaction_id, position)`` order, after the last row read, never
skips and never repeats one (the proof is in docs/storage.md). The price: an event is
read only once every transaction that started writing before it has ended, so a long
writing transaction anywhere on the server holds readers back (never writers).

The port still speaks in positions: a reader resumes after the position of the last event
it read, and the row at that position tells its transaction. Each call also waits, up to
a settle timeout, until the events committed before the call can be read, so a command
sees its own appends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from diceledger.domain.records import RecordedEvent
from diceledger.infra.store.database import translate_errors
from diceledger.infra.store.mapper import from_row
from diceledger.infra.store.schema import events
from diceledger.infra.store.xid import TransactionId

FIRST_PAUSE_S = 0.002
LONGEST_PAUSE_S = 0.05

# The oldest transaction still in progress, in the snapshot of the statement that asks.
HORIZON = sa.func.pg_snapshot_xmin(sa.func.pg_current_snapshot())

_TRANSACTION_AT = (
    sa.select(events.c.transaction_id)
    .where(events.c.position <= sa.bindparam("after"))
    .order_by(events.c.position.desc())
    .limit(1)
    .scalar_subquery()
)
_NEWEST_TRANSACTION = (
    sa.select(events.c.transaction_id)
    .order_by(events.c.transaction_id.desc())
    .limit(1)
    .scalar_subquery()
)
# Where to resume, and the newest transaction visible now (what the call waits for).
START = sa.select(_TRANSACTION_AT.label("resume_at"), _NEWEST_TRANSACTION.label("newest"))

# The event read last once every transaction has ended (committed or not yet readable).
LAST_IN_READ_ORDER = (
    sa.select(events.c.position)
    .order_by(events.c.transaction_id.desc(), events.c.position.desc())
    .limit(1)
)
PAGE = (
    sa.select(events)
    .where(
        sa.tuple_(events.c.transaction_id, events.c.position)
        > sa.tuple_(
            sa.bindparam("transaction_id", type_=TransactionId()),
            sa.bindparam("position", type_=sa.BigInteger()),
        ),
        events.c.transaction_id < HORIZON,
    )
    .order_by(events.c.transaction_id, events.c.position)
    .limit(sa.bindparam("limit"))
)


def read_settled(
    engine: Engine,
    after_position: int,
    batch_size: int,
    settle_seconds: float,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[RecordedEvent]:
    """Yield the events after ``after_position`` in (transaction, position) order.

    ``after_position`` is 0 or the position of an event this order yielded; any other
    number resumes after the last event recorded at or below it. Batches are short reads
    of their own. Once the readable events run out, the reader pauses and reads again
    while events committed before the call are still held back by an older transaction
    in progress, for at most ``settle_seconds``; it never yields one out of order.
    """
    with translate_errors(engine.url), engine.connect() as connection:
        start = connection.execute(START, {"after": after_position}).one()
    cursor: tuple[int, int] = (start.resume_at or 0, after_position)
    newest: int | None = start.newest
    deadline = time.monotonic() + settle_seconds
    pause = FIRST_PAUSE_S
    while True:
        rows = _page(engine, cursor, batch_size)
        yield from (from_row(row) for row in rows)
        if rows:
            cursor = (rows[-1]["transaction_id"], rows[-1]["position"])
        if len(rows) == batch_size:
            continue
        if newest is None or cursor[0] >= newest or time.monotonic() >= deadline:
            return
        sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE_S)


def _page(engine: Engine, cursor: tuple[int, int], limit: int) -> list[Any]:
    parameters = {"transaction_id": cursor[0], "position": cursor[1], "limit": limit}
    with translate_errors(engine.url), engine.connect() as connection:
        return list(connection.execute(PAGE, parameters).mappings())

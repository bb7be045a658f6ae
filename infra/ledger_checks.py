"""What the checkpoint ledger checks before it signs, and how it reads stored nodes.

Each check raises LogTamperedError naming what it found; none writes anything.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from diceledger.domain.errors import LogTamperedError
from diceledger.domain.hashchain import ChainHead, ChainVerifier
from diceledger.domain.merkle import NodeId
from diceledger.domain.records import RecordedEvent
from diceledger.infra.ledger_schema import merkle_nodes
from diceledger.infra.store.schema import events


def stored_nodes(
    connection: Connection, stream_id: str, wanted: set[NodeId]
) -> dict[NodeId, bytes]:
    """Return the stored hashes of the ``wanted`` nodes; a missing one means tampering."""
    if not wanted:
        return {}
    node = merkle_nodes.c
    # Levels IN (...) AND indexes IN (...): a few primary-key seeks (their cross product,
    # filtered here) from one statement whose compiled form is cached. A row-value IN of
    # (level, node_index) pairs made SQLite scan every node of the session instead.
    query = sa.select(node.level, node.node_index, node.hash).where(
        node.stream_id == stream_id,
        node.level.in_(sorted({level for level, _ in wanted})),
        node.node_index.in_(sorted({index for _, index in wanted})),
    )
    rows = connection.execute(query)
    found = {
        (row.level, row.node_index): bytes(row.hash)
        for row in rows
        if (row.level, row.node_index) in wanted
    }
    missing = wanted - set(found)
    if missing:
        raise LogTamperedError(
            f"session '{stream_id}' lacks {len(missing)} stored Merkle nodes it signed"
        )
    return found


def check_signed(connection: Connection, stream_id: str, records: Sequence[RecordedEvent]) -> None:
    """Check events told again (a retry) against the leaves already signed."""
    if not records:
        return
    leaves = stored_nodes(connection, stream_id, {(0, r.stream_version - 1) for r in records})
    for record in records:
        if leaves[(0, record.stream_version - 1)].hex() != record.hash:
            raise LogTamperedError(
                f"version {record.stream_version} of session '{stream_id}' is not the "
                "event this server signed; refusing to sign"
            )


def check_signed_rows(connection: Connection, stream_id: str, size: int) -> None:
    """Check the store still holds ``size`` signed rows, the last one the event signed."""
    kept = connection.scalar(
        sa.select(sa.func.count())
        .select_from(events)
        .where(events.c.stream_id == stream_id, events.c.stream_version <= size)
    )
    if kept != size:
        raise LogTamperedError(
            f"session '{stream_id}' lost {size - int(kept or 0)} of the {size} events this "
            "server signed; refusing to sign"
        )
    if size:
        last = stored_nodes(connection, stream_id, {(0, size - 1)})[(0, size - 1)].hex()
        stored = connection.scalar(
            sa.select(events.c.hash).where(
                events.c.stream_id == stream_id, events.c.stream_version == size
            )
        )
        if stored != last:
            raise LogTamperedError(
                f"version {size} of session '{stream_id}' is not the event this server "
                "signed; refusing to sign"
            )


def check_stream(
    connection: Connection, stream_id: str, size: int, fresh: Sequence[RecordedEvent]
) -> None:
    """Check the store holds the signed rows, then exactly ``fresh`` and nothing more."""
    check_signed_rows(connection, stream_id, size)
    rows = connection.execute(
        sa.select(events.c.stream_version, events.c.event_id, events.c.hash)
        .where(events.c.stream_id == stream_id, events.c.stream_version > size)
        .order_by(events.c.stream_version)
    ).all()
    stored = [(row.stream_version, row.event_id, row.hash) for row in rows]
    told = [(r.stream_version, r.event_id, r.hash) for r in fresh]
    if stored != told:
        versions = {version for version, _, _ in told}
        strangers = [version for version, _, _ in stored if version not in versions]
        detail = (
            f"versions {', '.join(map(str, strangers))} were not appended by this server"
            if strangers
            else "its rows are not the events this server was told it appended"
        )
        raise LogTamperedError(f"session '{stream_id}': {detail}; refusing to sign")


def in_order(stream_id: str, records: Sequence[RecordedEvent]) -> list[RecordedEvent]:
    """Return the told events as a list; refuse a batch that is not one append's."""
    told = list(records)
    if not told:
        raise ValueError("extend needs the events an append recorded")
    for previous, record in zip(told, told[1:], strict=False):
        if record.stream_version != previous.stream_version + 1:
            raise ValueError("extend needs consecutive versions, in order")
    if any(record.stream_id != stream_id for record in told):
        raise ValueError(f"extend was given events of another session than '{stream_id}'")
    return told


def check_chain(stream_id: str, size: int, last_leaf: str, fresh: Sequence[RecordedEvent]) -> None:
    """Check ``fresh`` links to the last signed event and each hash matches its contents."""
    verifier = ChainVerifier({stream_id: ChainHead(size, last_leaf)})
    for record in fresh:
        problem = verifier.check(record)
        if problem is not None:
            raise LogTamperedError(f"{problem}; refusing to sign")

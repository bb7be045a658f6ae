"""What the checkpoint ledger checks before it signs, and how it reads stored nodes.

Each check raises LogTamperedError naming what it found; none writes anything.

Signing reads O(1) rows whatever the session's length: the head checkpoint with its
compact range, the last signed row and its leaf, the lowest version, and the rows past the
signed size (normally none). What that checks: no row below version 1; the last signed
row present and the event signed; no row past the signed tree but a retried batch; the
compact range folding to the signed root, whose signature checks; the new events chained
to the last signed one and hashed right; and (``infra.ledger.signed_heads``) the tree still
holding the last head this host signed.

What it no longer checks is that every signed row below the last is still there: that
took counting them, O(rows) per command. A row deleted from the middle is caught instead
by whoever checks the log against a signed checkpoint (``verify``, a player's kept
checkpoint): the next tree is grown from the compact range, not from the rows, so the
checkpoints keep covering the deleted event and the log no longer folds to them. A cut
at the end together with the ledger rows above it is caught before signing, by the
heads file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from diceledger.domain.errors import LogTamperedError
from diceledger.domain.hashchain import GENESIS_HASH, ChainHead, ChainVerifier
from diceledger.domain.merkle import NodeId
from diceledger.domain.records import RecordedEvent
from diceledger.infra.store.prepared import Prepared

# The ledger's reads, built once: plain SQL that SQLAlchemy compiles once per dialect and
# caches, so a signed append pays no statement building or cache-key walk per read.
_NODES = sa.text(
    "SELECT level, node_index, hash FROM merkle_nodes"
    " WHERE stream_id = :stream_id AND level IN :levels AND node_index IN :indexes"
).bindparams(sa.bindparam("levels", expanding=True), sa.bindparam("indexes", expanding=True))
# What an append or an extend reads before it signs, in one round trip and one snapshot:
# the latest checkpoint with its compact range; the lowest version, the stored hash of the
# last signed row and the leaf it must equal (O(1), by the primary keys); and the rows past
# the signed size (normally none), one per result row. With none, the one row has NULLs
# there; with no checkpoint yet, NULLs for it.
_SIGNED_STATE = Prepared(
    sa.text(
        "SELECT head.tree_size, head.root, head.note, head.edge,"
        " (SELECT min(stream_version) FROM events WHERE stream_id = :stream_id) AS first,"
        " (SELECT hash FROM events"
        "  WHERE stream_id = :stream_id AND stream_version = head.tree_size) AS stored,"
        " (SELECT hash FROM merkle_nodes WHERE stream_id = :stream_id AND level = 0"
        "  AND node_index = head.tree_size - 1) AS leaf,"
        " beyond.stream_version, beyond.event_id, beyond.hash"
        " FROM (SELECT 1 AS one) AS one"
        " LEFT JOIN (SELECT tree_size, root, note, edge FROM signed_checkpoints"
        "  WHERE stream_id = :stream_id ORDER BY tree_size DESC LIMIT 1) AS head ON true"
        " LEFT JOIN events AS beyond ON beyond.stream_id = :stream_id"
        "  AND beyond.stream_version > coalesce(head.tree_size, 0)"
        " ORDER BY beyond.stream_version"
    )
)


@dataclass(frozen=True, slots=True)
class SignedHead:
    """A session's latest signed checkpoint as stored."""

    size: int
    root: bytes
    note: str
    edge: bytes | None  # the tree's compact range, kept with its checkpoint (None before 0013)


@dataclass(frozen=True, slots=True)
class SignedState:
    """What signing starts from: the latest checkpoint (None before the first), the leaf of
    the last signed row (checked against the row), and the rows past the signed size."""

    head: SignedHead | None
    last_leaf: str
    beyond: list[tuple[int, str, str]]  # (stream_version, event_id, hash), in order

    @property
    def size(self) -> int:
        return self.head.size if self.head is not None else 0


def stored_nodes(
    connection: Connection, stream_id: str, wanted: set[NodeId]
) -> dict[NodeId, bytes]:
    """Return the stored hashes of the ``wanted`` nodes; a missing one means tampering."""
    if not wanted:
        return {}
    # Levels IN (...) AND indexes IN (...): a few primary-key seeks (their cross product,
    # filtered here). A row-value IN of (level, node_index) pairs made SQLite scan every
    # node of the session instead.
    rows = connection.execute(
        _NODES,
        {
            "stream_id": stream_id,
            "levels": sorted({level for level, _ in wanted}),
            "indexes": sorted({index for _, index in wanted}),
        },
    )
    found = {
        (row.level, row.node_index): bytes(row.hash)
        for row in rows
        if (row.level, row.node_index) in wanted
    }
    missing = wanted - set(found)
    if missing:
        raise _lacks(stream_id, len(missing))
    return found


def _lacks(stream_id: str, missing: int) -> LogTamperedError:
    return LogTamperedError(f"session '{stream_id}' lacks {missing} stored Merkle nodes it signed")


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


def read_signed(connection: Connection, stream_id: str) -> SignedState:
    """Read the session's signed state in one statement and check its signed rows.

    Checks the store's last signed row is the event signed and no row sits below 1 (O(1)
    rows; rows deleted below the last one are left to verify and the heads file, see the
    module doc). Run under the session's lock, so no writer changes what it reads.
    """
    rows = _SIGNED_STATE.run(connection, {"stream_id": stream_id}).all()
    first = rows[0]
    head = None
    if first.tree_size is not None:
        edge = None if first.edge is None else bytes(first.edge)
        head = SignedHead(int(first.tree_size), bytes(first.root), first.note, edge)
    size = head.size if head is not None else 0
    last_leaf = _checked_leaf(stream_id, size, first.first, first.stored, first.leaf)
    beyond = [
        (int(row.stream_version), str(row.event_id), str(row.hash))
        for row in rows
        if row.stream_version is not None
    ]
    return SignedState(head, last_leaf, beyond)


def _checked_leaf(
    stream_id: str, size: int, first: int | None, stored: str | None, leaf: bytes | None
) -> str:
    """Return the last signed leaf (the genesis hash before the first) once checked."""
    if first is not None and int(first) < 1:
        raise LogTamperedError(
            f"session '{stream_id}' holds a row at version {first}, which no append "
            "writes; refusing to sign"
        )
    if not size:
        return GENESIS_HASH
    if leaf is None:
        raise _lacks(stream_id, 1)
    last: str = bytes(leaf).hex()
    if stored is None:
        raise LogTamperedError(
            f"session '{stream_id}' lost version {size}, the last of the {size} events "
            "this server signed; refusing to sign"
        )
    if stored != last:
        raise LogTamperedError(
            f"version {size} of session '{stream_id}' is not the event this server "
            "signed; refusing to sign"
        )
    return last


def check_stream(stream_id: str, state: SignedState, fresh: Sequence[RecordedEvent]) -> None:
    """Check the store holds exactly ``fresh`` past the signed rows, and nothing more."""
    told = [(r.stream_version, r.event_id, r.hash) for r in fresh]
    if state.beyond != told:
        versions = {version for version, _, _ in told}
        strangers = [version for version, _, _ in state.beyond if version not in versions]
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

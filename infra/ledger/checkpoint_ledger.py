"""The checkpoint ledger: each session's Merkle tree, grown and signed after every append.

``extend`` is told the events an append just recorded. Before it signs, it checks in one
transaction that the store's stream is exactly the tree it signed last plus those events:
no signed row missing or replaced, no row it was not told about, every new event chained
and hashed right, and the stored subtrees still folding to the last signed root. Anything
else raises LogTamperedError and nothing is signed, so a row forged or deleted by another
path stops the session loudly instead of being vouched for.

A checkpoint is signed for every size the ledger reaches, at most once (the primary key of
``signed_checkpoints``), so two roots for one size cannot both be issued. Proofs are folds
of stored complete subtrees: O(log n) rows, never the stream itself.

``append_signed`` appends and extends in one transaction (``infra.store.transaction``) with the
session locked, so a crash leaves both or neither. Before signing, the tree must also hold
the last head this host remembers signing, outside the database (``infra.ledger.signed_heads``):
rows cut together with their ledger rows are refused rather than signed as a fork.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Connection, Engine

from diceledger.domain.checkpoint import Checkpoint, SignedCheckpoint, origin_for
from diceledger.domain.errors import (
    ConcurrencyError,
    LogTamperedError,
    NotFoundError,
    SessionBusyError,
    UnsignedHistoryError,
)
from diceledger.domain.merkle import (
    ConsistencyProof,
    InclusionProof,
    NodeId,
    consistency_plan,
    fold,
    grow,
    inclusion_plan,
    plan_nodes,
    resolve,
    root_plan,
)
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.infra.ledger.checks import (
    SignedHead,
    SignedState,
    check_chain,
    check_signed,
    check_stream,
    in_order,
    read_signed,
    stored_nodes,
)
from diceledger.infra.ledger.schema import merkle_nodes, signed_checkpoints
from diceledger.infra.ledger.signed_heads import Head, SignedHeads, heads_path
from diceledger.infra.ledger.signing import Keyring, open_signed_checkpoint
from diceledger.infra.store.database import translate_errors
from diceledger.infra.store.mapper import from_row
from diceledger.infra.store.port import Clock, EventStore, utc_now
from diceledger.infra.store.prepared import Prepared
from diceledger.infra.store.schema import events
from diceledger.infra.store.session_lock import (
    RETRY_AFTER_SECONDS,
    hold_for_transaction,
    hold_session,
)
from diceledger.infra.store.transaction import Transaction, after_commit, one_transaction, writing

if TYPE_CHECKING:  # receipts are built on request only, not by every append
    from diceledger.domain.receipt import Receipt


LOG = logging.getLogger(__name__)

# Sessions whose last issued note a ledger remembers (one note each, about 300 bytes).
_ISSUED_KEPT = 4096
# The latest checkpoint, read by every append: built once (see checks.py).
_HEAD = sa.text(
    "SELECT tree_size, root, note, edge FROM signed_checkpoints"
    " WHERE stream_id = :stream_id ORDER BY tree_size DESC LIMIT 1"
)
HASH_BYTES = 32
# Every signing inserts the tree's new nodes and its checkpoint (infra/store/prepared.py).
_NODES_INSERT = Prepared(
    merkle_nodes.insert().values({c.name: sa.bindparam(c.name) for c in merkle_nodes.c})
)
_CHECKPOINT_INSERT = Prepared(
    signed_checkpoints.insert().values({c.name: sa.bindparam(c.name) for c in signed_checkpoints.c})
)


class CheckpointLedger:
    """Grow, sign and prove the Merkle trees of the store's sessions."""

    def __init__(
        self,
        engine: Engine,
        keyring: Keyring,
        clock: Clock = utc_now,
        heads: SignedHeads | None = None,
    ) -> None:
        """Sign with ``keyring``; remember each signed head in ``heads`` (by default the
        heads file beside the key, ``infra.ledger.signed_heads``)."""
        self._engine = engine
        self._keyring = keyring
        self._clock = clock
        self.heads = heads or SignedHeads(
            heads_path(keyring.path), lambda: [key.key_id.hex() for key in keyring.trusted()]
        )
        # The note this ledger last recorded for each session, as it recorded it (see _edge).
        self._issued: dict[str, tuple[str, Checkpoint]] = {}

    # ---- signing ----------------------------------------------------------------------

    def extend(self, stream_id: str, records: Sequence[RecordedEvent]) -> SignedCheckpoint:
        """Add the events an append just recorded to the session's tree and sign it.

        ``records`` are the recorded events of one append, in version order. Told again
        about events already signed (a retried append), it signs nothing new and returns
        the latest checkpoint. Raises LogTamperedError, signing nothing, when the store's
        stream is not the signed tree plus exactly these events.
        """
        told = in_order(stream_id, records)
        with self._writing(stream_id) as connection:
            state = read_signed(connection, stream_id)
            head, size = state.head, state.size
            check_signed(connection, stream_id, [r for r in told if r.stream_version <= size])
            fresh = [record for record in told if record.stream_version > size]
            if not fresh:
                if head is None:
                    raise LogTamperedError(f"session '{stream_id}' has nothing to sign")
                return self._open(head.note)
            if fresh[0].stream_version != size + 1:
                raise LogTamperedError(
                    f"session '{stream_id}' holds versions {size + 1} to "
                    f"{fresh[0].stream_version - 1}, which this server did not append; "
                    "refusing to sign"
                )
            check_stream(stream_id, state, fresh)
            return self._sign(connection, stream_id, state, fresh)

    def adopt(self, stream_id: str) -> SignedCheckpoint:
        """Sign the events after the session's last checkpoint that nobody told the ledger of.

        A trust decision for an operator, never an automatic step: for sessions recorded
        before this server signed anything, or events an older server appended but did
        not sign (appends now commit with their signature). The rows are taken as they
        are, after checking that they continue the signed chain and hash right.
        """
        with self._writing(stream_id) as connection:
            state = read_signed(connection, stream_id)
            query = (
                sa.select(events)
                .where(events.c.stream_id == stream_id, events.c.stream_version > state.size)
                .order_by(events.c.stream_version)
            )
            fresh = [from_row(row) for row in connection.execute(query).mappings()]
            if not fresh:
                if state.head is None:
                    raise NotFoundError(f"session '{stream_id}' has no events to sign")
                return self._open(state.head.note)
            check_stream(stream_id, state, fresh)
            return self._sign(connection, stream_id, state, fresh)

    def _sign(
        self,
        connection: Connection,
        stream_id: str,
        state: SignedState,
        fresh: Sequence[RecordedEvent],
    ) -> SignedCheckpoint:
        """Check ``fresh`` continues the signed chain, grow the tree by it, sign and record.

        ``state`` is the signed state ``read_signed`` read and checked in this transaction.
        """
        head, size = state.head, state.size
        key = self._keyring.current()
        check_chain(stream_id, size, state.last_leaf, fresh)
        edge = self._edge(connection, stream_id, size, head)
        created = grow(size, edge, [bytes.fromhex(record.hash) for record in fresh])
        _NODES_INSERT.run_many(
            connection,
            [
                {"stream_id": stream_id, "level": lv, "node_index": ix, "hash": value}
                for (lv, ix), value in created
            ],
        )
        new_size = size + len(fresh)
        nodes = dict(zip(root_plan(size), edge, strict=True)) | dict(created)
        root = fold([nodes[node] for node in root_plan(new_size)])
        self._check_no_fork(connection, stream_id, head, Head(new_size, root), nodes)
        signed = key.sign_checkpoint(Checkpoint(origin_for(key.name, stream_id), new_size, root))
        new_edge = b"".join(nodes[node] for node in root_plan(new_size))
        self._record(connection, stream_id, signed, new_edge, self._clock())
        # Remembered outside the database once the tree is committed (infra.ledger.signed_heads).
        grown, signer = Head(new_size, root), key.verifier.key_id.hex()
        after_commit(functools.partial(self.heads.remember, stream_id, grown, signer))
        return signed

    def _check_no_fork(
        self,
        connection: Connection,
        stream_id: str,
        head: SignedHead | None,
        grown: Head,
        nodes: Mapping[NodeId, bytes],
    ) -> None:
        """Refuse to sign ``grown`` unless it holds the last head this host remembers signing.

        ``nodes`` are the grown tree's edge and new nodes. The database's tree (``head``)
        may be ahead of the heads file (a crash after the commit, before the head was
        written) and an import may jump past it; either way the tree signed now must have
        the remembered root at the remembered size. A tree that does not (a cut with the
        ledger rows, then new rolls) would fork what players may hold.
        """
        remembered = self.heads.latest(stream_id)
        if remembered is None:
            return
        size = head.size if head is not None else 0
        held: bytes | None = None
        if remembered.size <= grown.size:
            plan = root_plan(remembered.size)
            if remembered.size < size:  # inside the stored tree: read its O(log n) nodes
                found = stored_nodes(connection, stream_id, set(plan))
                held = fold([found[node] for node in plan])
            else:  # the edge, or nodes grown now
                held = fold([nodes[node] for node in plan])
        if held == remembered.root:
            return
        stored = Head(size, head.root if head is not None else b"")
        message = (
            f"session '{stream_id}': the database's signed tree ({stored}), grown to "
            f"{grown}, does not extend the tree this server signed last ({remembered}, "
            f"kept in {self.heads.path}); refusing to sign a fork"
        )
        LOG.error("REFUSING TO SIGN: %s", message)
        raise LogTamperedError(message)

    def append_signed(
        self,
        store: EventStore,
        stream_id: str,
        new_events: Sequence[NewEvent],
        expected_version: int,
    ) -> tuple[list[RecordedEvent], SignedCheckpoint]:
        """Append to the store and sign the result in one transaction, with the session locked.

        The events, their Merkle nodes and the signed checkpoint commit together (with the
        rest of the request's transaction, ``infra.store.transaction``) or not at all, so a crash
        never leaves rows this server appended but did not sign. Before appending, the
        stream must be exactly the tree signed last (or, for a retried batch, that tree and
        this batch): a stream changed by another path is refused with LogTamperedError and
        nothing is appended.
        """
        with (
            one_transaction(self._engine) as transaction,
            writing(self._engine) as connection,
            _attempt(connection, stream_id),  # a conflict leaves nothing of this attempt
        ):
            self._lock(transaction, connection, stream_id)
            state = read_signed(connection, stream_id)
            head, size, beyond = state.head, state.size, state.beyond
            retried = {event.event_id for event in new_events}
            if beyond and {event_id for _, event_id, _ in beyond} != retried:
                raise UnsignedHistoryError(stream_id, size + 1, beyond[-1][0])
            # The store joins this transaction and answers with the records as stored (a
            # retried batch at its original versions), so nothing is read back.
            recorded = store.append(stream_id, new_events, expected_version)
            told = in_order(stream_id, recorded)
            fresh = [record for record in told if record.stream_version > size]
            check_signed(connection, stream_id, [r for r in told if r.stream_version <= size])
            if not fresh:
                if head is None:
                    raise LogTamperedError(f"session '{stream_id}' has nothing to sign")
                return recorded, self._open(head.note)
            return recorded, self._sign(connection, stream_id, state, fresh)

    def _lock(self, transaction: Transaction, connection: Connection, stream_id: str) -> None:
        """Hold the session's ledger lock until the transaction ends (see ``exclusive``)."""
        if connection.dialect.name == "postgresql":
            # The transaction-level twin of ``exclusive``'s lock: the two exclude each other.
            hold_for_transaction(connection, stream_id, "session")
        else:
            # BEGIN IMMEDIATE holds the write lock already; the file lock keeps an import
            # (``exclusive``: two transactions) from landing between its steps.
            transaction.hold(stream_id, lambda: hold_session(self._engine, stream_id))

    @contextmanager
    def exclusive(self, stream_id: str) -> Iterator[None]:
        """Hold the session's ledger lock: one append-and-extend at a time, across processes.

        See ``infra.store.session_lock``: a locked row on PostgreSQL, a file lock on SQLite.
        """
        with hold_session(self._engine, stream_id):
            yield

    # ---- reading ----------------------------------------------------------------------

    def latest(self, stream_id: str) -> SignedCheckpoint | None:
        """Return the session's latest signed checkpoint (None before its first)."""
        with self._reading() as connection:
            head = self._head(connection, stream_id)
        return None if head is None else self._open(head.note)

    def checkpoint_at(self, stream_id: str, size: int) -> SignedCheckpoint | None:
        """Return the checkpoint signed for ``size`` events, if one was."""
        query = sa.select(signed_checkpoints.c.note).where(
            signed_checkpoints.c.stream_id == stream_id, signed_checkpoints.c.tree_size == size
        )
        with self._reading() as connection:
            note = connection.scalar(query)
        return None if note is None else self._open(note)

    def inclusion(self, stream_id: str, index: int, size: int | None = None) -> InclusionProof:
        """Return the proof that leaf ``index`` (version - 1) is in the tree of ``size``."""
        with self._reading() as connection:
            size = self._signed_size(connection, stream_id, size)
            if not 0 <= index < size:
                raise NotFoundError(
                    f"session '{stream_id}' has {size} signed events; none at index {index}"
                )
            plan = inclusion_plan(index, size)
            nodes = stored_nodes(connection, stream_id, plan_nodes(plan))
        return InclusionProof(index, size, resolve(plan, nodes.__getitem__))

    def consistency(
        self, stream_id: str, old_size: int, new_size: int | None = None
    ) -> ConsistencyProof:
        """Return the proof that the tree of ``old_size`` is a prefix of that of ``new_size``."""
        with self._reading() as connection:
            new_size = self._signed_size(connection, stream_id, new_size)
            if not 0 <= old_size <= new_size:
                raise NotFoundError(
                    f"no consistency proof from {old_size} to {new_size} events "
                    f"in session '{stream_id}'"
                )
            plan = consistency_plan(old_size, new_size)
            nodes = stored_nodes(connection, stream_id, plan_nodes(plan))
        return ConsistencyProof(old_size, new_size, resolve(plan, nodes.__getitem__))

    def receipt(self, stream_id: str, records: Iterable[RecordedEvent]) -> Receipt:
        """Return a receipt for recorded events against the session's latest checkpoint."""
        from diceledger.domain.receipt import build_receipt

        signed = self.latest(stream_id)
        if signed is None:
            raise NotFoundError(f"session '{stream_id}' has no signed checkpoint yet")
        size = signed.checkpoint.size
        proofs = [(r, self.inclusion(stream_id, r.stream_version - 1, size)) for r in records]
        return build_receipt(signed, proofs)

    # ---- inside ----------------------------------------------------------------------

    def _open(self, note: str) -> SignedCheckpoint:
        """Parse a stored note, checking its signature: the table is not trusted blindly."""
        return open_signed_checkpoint(note, self._keyring.trusted())

    @staticmethod
    def _head(connection: Connection, stream_id: str) -> SignedHead | None:
        row = connection.execute(_HEAD, {"stream_id": stream_id}).first()
        if row is None:
            return None
        edge = None if row.edge is None else bytes(row.edge)
        return SignedHead(int(row.tree_size), bytes(row.root), row.note, edge)

    def _signed_size(self, connection: Connection, stream_id: str, size: int | None) -> int:
        head = self._head(connection, stream_id)
        latest = head.size if head else 0
        if size is None:
            return latest
        if not 0 <= size <= latest:
            raise NotFoundError(f"session '{stream_id}' has {latest} signed events, not {size}")
        return size

    def _edge(
        self, connection: Connection, stream_id: str, size: int, head: SignedHead | None
    ) -> list[bytes]:
        """Return the tree's edge nodes, checked against the last signed root.

        They are the compact range kept with the last checkpoint: no read past the head's
        row. A checkpoint from before migration 0013 has none; its nodes are read instead.
        """
        plan = root_plan(size)
        if head is not None and head.edge is not None:
            kept = head.edge
            edge = [kept[at : at + HASH_BYTES] for at in range(0, len(kept), HASH_BYTES)]
        else:
            nodes = stored_nodes(connection, stream_id, set(plan))
            edge = [nodes[node] for node in plan]
        if len(edge) != len(plan):
            raise LogTamperedError(
                f"the compact range kept for session '{stream_id}' at {size} events is not "
                "that tree's; refusing to sign"
            )
        if head is not None:
            signed = self._head_checkpoint(stream_id, head)
            if (signed.size, signed.root) != (size, head.root) or fold(edge) != head.root:
                raise LogTamperedError(
                    f"the stored tree of session '{stream_id}' no longer folds to the root "
                    f"it signed for {size} events; refusing to sign"
                )
        return edge

    def _head_checkpoint(self, stream_id: str, head: SignedHead) -> Checkpoint:
        """Return the stored head's checkpoint, its signature checked unless known good.

        The table is not trusted blindly: a stored note is parsed and its signature checked
        against the trusted keys. A note byte for byte the one this ledger recorded last for
        the session needs no check: its signature is ours, by the current key, which every
        keyring trusts; a note replaced or altered in the database differs and is checked.
        """
        note, checkpoint = self._issued.get(stream_id, ("", None))
        if checkpoint is not None and note == head.note:
            return checkpoint
        return self._open(head.note).checkpoint

    def _remember(self, stream_id: str, note: str, checkpoint: Checkpoint) -> None:
        if len(self._issued) >= _ISSUED_KEPT and stream_id not in self._issued:
            self._issued.clear()  # a server with many sessions: start the memo over
        self._issued[stream_id] = (note, checkpoint)

    def _record(
        self,
        connection: Connection,
        stream_id: str,
        signed: SignedCheckpoint,
        edge: bytes,
        issued_at: datetime,
    ) -> None:
        note = str(signed)
        row: dict[str, str | int | bytes | datetime] = {
            "stream_id": stream_id,
            "tree_size": signed.checkpoint.size,
            "root": signed.checkpoint.root,
            "note": note,
            "key_id": signed.note.signatures[0].key_id.hex(),
            "issued_at": issued_at,
            "edge": edge,
        }
        try:
            _CHECKPOINT_INSERT.run(connection, row)
        except exc.IntegrityError:
            # The extend lock makes this unreachable; the key keeps it impossible anyway.
            raise LogTamperedError(
                f"session '{stream_id}' already has a checkpoint for "
                f"{signed.checkpoint.size} events; refusing to sign a second"
            ) from None
        self._remember(stream_id, note, signed.checkpoint)

    @contextmanager
    def _writing(self, stream_id: str) -> Iterator[Connection]:
        # One transaction (``infra.store.transaction``): the head is remembered after it commits.
        with one_transaction(self._engine), writing(self._engine) as connection:
            if connection.dialect.name == "postgresql":
                # Serialise extends of one session; SQLite's BEGIN IMMEDIATE already does.
                hold_for_transaction(connection, stream_id, "extend")
            yield connection

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            yield connection


@contextmanager
def _attempt(connection: Connection, stream_id: str) -> Iterator[None]:
    """Confine one append attempt, so that the command may retry it after a conflict.

    The attempt takes the session's lock first, and every writer of a session appends
    under it, so a conflict (a state read before the lock, another writer's append since)
    is found by the store's version check before anything is written: no savepoint is
    needed to undo it, and none is paid for (on PostgreSQL two round trips a roll, on
    SQLite two statements' work in Python). Should a conflict come after a write all the
    same (a writer that skipped the lock; a batch half inserted), the attempt cannot be
    undone alone: the request fails as busy, nothing of it commits, and its retry runs
    afresh. PostgreSQL tells this by the voided transaction, SQLite by its count of rows
    changed on the connection.
    """
    changes = _changes(connection)
    try:
        yield
    except ConcurrencyError:
        if _voided(connection) or _changes(connection) != changes:
            raise SessionBusyError(stream_id, RETRY_AFTER_SECONDS) from None
        raise


def _changes(connection: Connection) -> int | None:
    """Return the rows SQLite's connection has changed so far (None on PostgreSQL)."""
    driver = connection.connection.driver_connection
    return driver.total_changes if isinstance(driver, sqlite3.Connection) else None


def _voided(connection: Connection) -> bool:
    """Tell whether a failed statement voided the PostgreSQL transaction."""
    if connection.dialect.name != "postgresql":
        return False
    from psycopg.pq import TransactionStatus

    info = getattr(connection.connection.dbapi_connection, "info", None)
    return info is not None and info.transaction_status == TransactionStatus.INERROR

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

Appends and the extends that follow them must happen in the same order for one session:
``append_signed`` does both while holding the session's ledger lock (``exclusive``).
"""

from __future__ import annotations

import fcntl
import hashlib
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Connection, Engine

from diceledger.domain.checkpoint import Checkpoint, SignedCheckpoint, origin_for
from diceledger.domain.errors import LogTamperedError, NotFoundError
from diceledger.domain.hashchain import GENESIS_HASH, ChainHead, ChainVerifier
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
from diceledger.domain.receipt import Receipt, build_receipt
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.infra.db import translate_errors, write_connection
from diceledger.infra.ledger_schema import merkle_nodes, signed_checkpoints
from diceledger.infra.signing import Keyring, open_signed_checkpoint
from diceledger.infra.store.mapper import from_row
from diceledger.infra.store.port import Clock, EventStore, utc_now
from diceledger.infra.store.schema import events

_TRANSACTION_LOCK = b"diceledger/ledger/extend/"
_SESSION_LOCK = b"diceledger/ledger/session/"
_LOCAL_LOCKS: dict[str, threading.Lock] = {}
_LOCAL_LOCKS_GUARD = threading.Lock()


@dataclass(frozen=True, slots=True)
class _Head:
    size: int
    root: bytes
    note: str


class CheckpointLedger:
    """Grow, sign and prove the Merkle trees of the store's sessions."""

    def __init__(self, engine: Engine, keyring: Keyring, clock: Clock = utc_now) -> None:
        self._engine = engine
        self._keyring = keyring
        self._clock = clock

    # ---- signing ----------------------------------------------------------------------

    def extend(self, stream_id: str, records: Sequence[RecordedEvent]) -> SignedCheckpoint:
        """Add the events an append just recorded to the session's tree and sign it.

        ``records`` are the recorded events of one append, in version order. Told again
        about events already signed (a retried append), it signs nothing new and returns
        the latest checkpoint. Raises LogTamperedError, signing nothing, when the store's
        stream is not the signed tree plus exactly these events.
        """
        told = _in_order(stream_id, records)
        with self._writing(stream_id) as connection:
            head = self._head(connection, stream_id)
            size = head.size if head else 0
            self._check_signed(connection, stream_id, [r for r in told if r.stream_version <= size])
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
            self._check_stream(connection, stream_id, size, fresh)
            return self._sign(connection, stream_id, head, fresh)

    def adopt(self, stream_id: str) -> SignedCheckpoint:
        """Sign the events after the session's last checkpoint that nobody told the ledger of.

        A trust decision for an operator, never an automatic step: for sessions recorded
        before this server signed anything, or events appended by a process that stopped
        before it could extend. The rows are taken as they are, after checking that they
        continue the signed chain and hash right.
        """
        with self._writing(stream_id) as connection:
            head = self._head(connection, stream_id)
            size = head.size if head else 0
            query = (
                sa.select(events)
                .where(events.c.stream_id == stream_id, events.c.stream_version > size)
                .order_by(events.c.stream_version)
            )
            fresh = [from_row(row) for row in connection.execute(query).mappings()]
            if not fresh:
                if head is None:
                    raise NotFoundError(f"session '{stream_id}' has no events to sign")
                return self._open(head.note)
            self._check_stream(connection, stream_id, size, fresh)
            return self._sign(connection, stream_id, head, fresh)

    def _sign(
        self,
        connection: Connection,
        stream_id: str,
        head: _Head | None,
        fresh: Sequence[RecordedEvent],
    ) -> SignedCheckpoint:
        """Check ``fresh`` continues the signed chain, grow the tree by it, sign and record."""
        size = head.size if head else 0
        key = self._keyring.current()
        last_leaf = GENESIS_HASH
        if size:
            last_leaf = self._nodes(connection, stream_id, {(0, size - 1)})[(0, size - 1)].hex()
        _check_chain(stream_id, size, last_leaf, fresh)
        edge = self._edge(connection, stream_id, size, head)
        created = grow(size, edge, [bytes.fromhex(record.hash) for record in fresh])
        connection.execute(
            merkle_nodes.insert(),
            [
                {"stream_id": stream_id, "level": lv, "node_index": ix, "hash": value}
                for (lv, ix), value in created
            ],
        )
        new_size = size + len(fresh)
        nodes = dict(zip(root_plan(size), edge, strict=True)) | dict(created)
        root = fold([nodes[node] for node in root_plan(new_size)])
        signed = key.sign_checkpoint(Checkpoint(origin_for(key.name, stream_id), new_size, root))
        self._record(connection, stream_id, signed, self._clock())
        return signed

    def append_signed(
        self,
        store: EventStore,
        stream_id: str,
        new_events: Sequence[NewEvent],
        expected_version: int,
    ) -> tuple[list[RecordedEvent], SignedCheckpoint]:
        """Append to the store and sign the result, with no other append in between."""
        with self.exclusive(stream_id):
            store.append(stream_id, new_events, expected_version)
            wanted = {event.event_id for event in new_events}
            recorded = [
                record
                for record in store.read_stream(stream_id, max(expected_version, 0) + 1)
                if record.event_id in wanted
            ]
            if len(recorded) != len(wanted):  # a retried batch sits at its original versions
                recorded = [r for r in store.read_stream(stream_id) if r.event_id in wanted]
            return recorded, self.extend(stream_id, recorded)

    @contextmanager
    def exclusive(self, stream_id: str) -> Iterator[None]:
        """Hold the session's ledger lock: one append-and-extend at a time, across processes.

        PostgreSQL: a session-level advisory lock on a connection of its own. SQLite: an
        exclusive lock on a file beside the database (a file has one machine's writers).
        """
        with _local_lock(stream_id):
            if self._engine.dialect.name == "postgresql":
                with self._advisory_lock(stream_id):
                    yield
                return
            with _file_lock(self._engine):
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
            nodes = self._nodes(connection, stream_id, plan_nodes(plan))
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
            nodes = self._nodes(connection, stream_id, plan_nodes(plan))
        return ConsistencyProof(old_size, new_size, resolve(plan, nodes.__getitem__))

    def receipt(self, stream_id: str, records: Iterable[RecordedEvent]) -> Receipt:
        """Return a receipt for recorded events against the session's latest checkpoint."""
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
    def _head(connection: Connection, stream_id: str) -> _Head | None:
        query = (
            sa.select(
                signed_checkpoints.c.tree_size, signed_checkpoints.c.root, signed_checkpoints.c.note
            )
            .where(signed_checkpoints.c.stream_id == stream_id)
            .order_by(signed_checkpoints.c.tree_size.desc())
            .limit(1)
        )
        row = connection.execute(query).first()
        return None if row is None else _Head(int(row.tree_size), bytes(row.root), row.note)

    def _signed_size(self, connection: Connection, stream_id: str, size: int | None) -> int:
        head = self._head(connection, stream_id)
        latest = head.size if head else 0
        if size is None:
            return latest
        if not 0 <= size <= latest:
            raise NotFoundError(f"session '{stream_id}' has {latest} signed events, not {size}")
        return size

    @staticmethod
    def _nodes(connection: Connection, stream_id: str, wanted: set[NodeId]) -> dict[NodeId, bytes]:
        if not wanted:
            return {}
        query = sa.select(
            merkle_nodes.c.level, merkle_nodes.c.node_index, merkle_nodes.c.hash
        ).where(
            merkle_nodes.c.stream_id == stream_id,
            sa.tuple_(merkle_nodes.c.level, merkle_nodes.c.node_index).in_(sorted(wanted)),
        )
        found = {(row.level, row.node_index): bytes(row.hash) for row in connection.execute(query)}
        missing = wanted - set(found)
        if missing:
            raise LogTamperedError(
                f"session '{stream_id}' lacks {len(missing)} stored Merkle nodes it signed"
            )
        return found

    def _edge(
        self, connection: Connection, stream_id: str, size: int, head: _Head | None
    ) -> list[bytes]:
        """Return the tree's edge nodes, checked against the last signed root."""
        plan = root_plan(size)
        nodes = self._nodes(connection, stream_id, set(plan))
        edge = [nodes[node] for node in plan]
        if head is not None:
            signed = self._open(head.note).checkpoint
            if (signed.size, signed.root) != (size, head.root) or fold(edge) != head.root:
                raise LogTamperedError(
                    f"the stored tree of session '{stream_id}' no longer folds to the root "
                    f"it signed for {size} events; refusing to sign"
                )
        return edge

    def _check_signed(
        self, connection: Connection, stream_id: str, records: Sequence[RecordedEvent]
    ) -> None:
        """Check events told again (a retry) against the leaves already signed."""
        if not records:
            return
        leaves = self._nodes(connection, stream_id, {(0, r.stream_version - 1) for r in records})
        for record in records:
            if leaves[(0, record.stream_version - 1)].hex() != record.hash:
                raise LogTamperedError(
                    f"version {record.stream_version} of session '{stream_id}' is not the "
                    "event this server signed; refusing to sign"
                )

    def _check_stream(
        self, connection: Connection, stream_id: str, size: int, fresh: Sequence[RecordedEvent]
    ) -> None:
        """Check the store holds the signed rows, then exactly ``fresh`` and nothing more."""
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
        last_leaf = GENESIS_HASH
        if size:
            last_leaf = self._nodes(connection, stream_id, {(0, size - 1)})[(0, size - 1)].hex()
        rows = connection.execute(
            sa.select(events.c.stream_version, events.c.event_id, events.c.hash)
            .where(events.c.stream_id == stream_id, events.c.stream_version >= max(size, 1))
            .order_by(events.c.stream_version)
        ).all()
        stored = [(row.stream_version, row.event_id, row.hash) for row in rows]
        if size:
            first = stored.pop(0) if stored else None
            if first is None or first[0] != size or first[2] != last_leaf:
                raise LogTamperedError(
                    f"version {size} of session '{stream_id}' is not the event this server "
                    "signed; refusing to sign"
                )
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

    @staticmethod
    def _record(
        connection: Connection, stream_id: str, signed: SignedCheckpoint, issued_at: datetime
    ) -> None:
        row = {
            "stream_id": stream_id,
            "tree_size": signed.checkpoint.size,
            "root": signed.checkpoint.root,
            "note": str(signed),
            "key_id": signed.note.signatures[0].key_id.hex(),
            "issued_at": issued_at,
        }
        try:
            connection.execute(signed_checkpoints.insert(), row)
        except exc.IntegrityError:
            # The extend lock makes this unreachable; the key keeps it impossible anyway.
            raise LogTamperedError(
                f"session '{stream_id}' already has a checkpoint for "
                f"{signed.checkpoint.size} events; refusing to sign a second"
            ) from None

    @contextmanager
    def _writing(self, stream_id: str) -> Iterator[Connection]:
        with (
            translate_errors(self._engine.url),
            write_connection(self._engine) as connection,
            connection.begin(),
        ):
            if connection.dialect.name == "postgresql":
                # Serialise extends of one session; SQLite's BEGIN IMMEDIATE already does.
                connection.execute(
                    sa.text("SELECT pg_advisory_xact_lock(:key)"),
                    {"key": _lock_key(_TRANSACTION_LOCK, stream_id)},
                )
            yield connection

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            yield connection

    @contextmanager
    def _advisory_lock(self, stream_id: str) -> Iterator[None]:
        key = _lock_key(_SESSION_LOCK, stream_id)
        with self._reading() as connection:
            connection.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": key})
            connection.commit()
            try:
                yield
            finally:
                connection.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                connection.commit()


def _in_order(stream_id: str, records: Sequence[RecordedEvent]) -> list[RecordedEvent]:
    told = list(records)
    if not told:
        raise ValueError("extend needs the events an append recorded")
    for previous, record in zip(told, told[1:], strict=False):
        if record.stream_version != previous.stream_version + 1:
            raise ValueError("extend needs consecutive versions, in order")
    if any(record.stream_id != stream_id for record in told):
        raise ValueError(f"extend was given events of another session than '{stream_id}'")
    return told


def _check_chain(stream_id: str, size: int, last_leaf: str, fresh: Sequence[RecordedEvent]) -> None:
    verifier = ChainVerifier({stream_id: ChainHead(size, last_leaf)})
    for record in fresh:
        problem = verifier.check(record)
        if problem is not None:
            raise LogTamperedError(f"{problem}; refusing to sign")


def _lock_key(prefix: bytes, stream_id: str) -> int:
    digest = hashlib.sha256(prefix + stream_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _local_lock(stream_id: str) -> threading.Lock:
    with _LOCAL_LOCKS_GUARD:
        return _LOCAL_LOCKS.setdefault(stream_id, threading.Lock())


@contextmanager
def _file_lock(engine: Engine) -> Iterator[None]:
    database = engine.url.database
    if not database or database == ":memory:":
        yield  # one process: the thread lock is enough
        return
    path = Path(database).with_name(Path(database).name + ".ledger-lock")
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

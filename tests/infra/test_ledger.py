"""The checkpoint ledger signs exactly the server's own appends, and proves them.

Rows that reach the events table by another path (a forged INSERT with a recomputed hash,
a deleted or replaced row, with the append-only triggers dropped as the database's owner
can) stop the session: the ledger raises and signs nothing.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from diceledger.domain.checkpoint import SignedCheckpoint, check_extends
from diceledger.domain.errors import (
    ConcurrencyError,
    LogTamperedError,
    NotFoundError,
    SignatureError,
    UnsignedHistoryError,
)
from diceledger.domain.hashchain import ChainHead
from diceledger.domain.merkle import MerkleTree, verify_inclusion
from diceledger.domain.receipt import verify_receipt
from diceledger.domain.records import RecordedEvent
from diceledger.infra.ledger.checkpoint_ledger import CheckpointLedger
from diceledger.infra.ledger.schema import signed_checkpoints
from diceledger.infra.ledger.signing import Keyring, SigningKey, ed25519_check, key_name_for
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.mapper import to_row
from diceledger.infra.store.schema import events
from diceledger.infra.store.sealing import seal
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.support import new_event

SESSION = "crypt-1a2b3c"


class Table:
    """A store, its ledger and the tools of someone with the database's owner rights."""

    def __init__(self, engine: Engine, keyring: Keyring) -> None:
        self.engine = engine
        self.keyring = keyring
        self.store = SqlEventStore(engine)
        self.ledger = CheckpointLedger(engine, keyring)

    def play(self, count: int = 1) -> tuple[list[RecordedEvent], SignedCheckpoint]:
        version = self.store.current_version(SESSION)
        batch = [new_event(face=n) for n in range(count)]
        return self.ledger.append_signed(self.store, SESSION, batch, version)

    def hashes(self) -> list[bytes]:
        return [bytes.fromhex(r.hash) for r in self.store.read_stream(SESSION)]

    def drop_triggers(self) -> None:
        with self.engine.begin() as connection:
            if connection.dialect.name == "sqlite":
                for name in ("events_reject_update", "events_reject_delete"):
                    connection.execute(sa.text(f"DROP TRIGGER {name}"))
                for table in ("merkle_nodes", "signed_checkpoints"):
                    for verb in ("update", "delete"):
                        connection.execute(sa.text(f"DROP TRIGGER {table}_reject_{verb}"))
            else:
                connection.execute(sa.text("DROP TRIGGER events_reject_change ON events"))
                for table in ("merkle_nodes", "signed_checkpoints"):
                    connection.execute(sa.text(f"DROP TRIGGER {table}_reject_change ON {table}"))

    def forge_insert(self) -> RecordedEvent:
        """INSERT an event with a correct chain link and hash, past the application."""
        head = list(self.store.read_stream(SESSION))[-1]
        (forged,) = seal(
            SESSION,
            [new_event(face=20)],
            ChainHead(head.stream_version, head.hash),
            datetime.now(UTC),
        )
        with self.engine.begin() as connection:
            connection.execute(events.insert(), [to_row(forged)])
        return forged

    def delete(self, version: int) -> None:
        with self.engine.begin() as connection:
            connection.execute(
                events.delete().where(
                    events.c.stream_id == SESSION, events.c.stream_version == version
                )
            )


@pytest.fixture
def table(sql_url: str, tmp_path: Path) -> Iterator[Table]:
    engine = make_engine(sql_url)
    try:
        yield Table(engine, Keyring(tmp_path / "signing.key", "dice.example"))
    finally:
        engine.dispose()


# ---- signing every append ------------------------------------------------------------------


def test_every_append_is_signed_and_extends_the_last_checkpoint(table: Table) -> None:
    kept: SignedCheckpoint | None = None
    for count in (1, 3, 2, 1, 5, 4):
        recorded, signed = table.play(count)
        size = table.store.current_version(SESSION)
        assert signed.checkpoint.size == size == recorded[-1].stream_version
        assert signed.checkpoint.origin == f"dice.example/diceledger/{SESSION}"
        assert signed.checkpoint.root == MerkleTree(table.hashes()).root()
        assert table.ledger.latest(SESSION) == signed
        if kept is not None:
            proof = table.ledger.consistency(SESSION, kept.checkpoint.size)
            check_extends(kept.checkpoint, signed.checkpoint, proof)
        kept = signed


def test_proofs_from_stored_nodes_verify_for_every_event_and_size(table: Table) -> None:
    for count in (3, 4, 6):
        table.play(count)
    leaves = table.hashes()
    tree = MerkleTree(leaves)
    for size in range(1, len(leaves) + 1):
        for index in range(size):
            proof = table.ledger.inclusion(SESSION, index, size)
            assert proof == tree.inclusion(index, size)
            verify_inclusion(leaves[index], proof, tree.root(size))
        assert table.ledger.consistency(SESSION, size, len(leaves)) == tree.consistency(size)


def test_a_checkpoint_is_signed_for_every_size_reached(table: Table) -> None:
    table.play(2)
    table.play(1)
    assert table.ledger.checkpoint_at(SESSION, 1) is None  # appended together with 2
    two = table.ledger.checkpoint_at(SESSION, 2)
    assert two is not None and two.checkpoint.size == 2
    assert table.ledger.latest("no-such-session") is None


def test_a_retried_extend_signs_nothing_new(table: Table) -> None:
    recorded, signed = table.play(3)
    assert table.ledger.extend(SESSION, recorded) == signed
    assert table.ledger.extend(SESSION, recorded[1:]) == signed


def test_proofs_past_the_signed_tree_are_not_found(table: Table) -> None:
    table.play(3)
    with pytest.raises(NotFoundError, match="none at index 3"):
        table.ledger.inclusion(SESSION, 3)
    with pytest.raises(NotFoundError, match="not 4"):
        table.ledger.consistency(SESSION, 1, 4)


def test_a_receipt_from_the_ledger_checks_offline(table: Table) -> None:
    recorded, _ = table.play(3)
    table.play(2)
    receipt = table.ledger.receipt(SESSION, recorded)
    verified = verify_receipt(receipt, table.keyring.trusted(), ed25519_check)
    assert [r["event_id"] for r in verified.records] == [r.event_id for r in recorded]
    assert verified.checkpoint.checkpoint.size == 5


# ---- tampering -----------------------------------------------------------------------------


def test_a_forged_insert_stops_the_session_instead_of_being_signed(table: Table) -> None:
    table.play(3)
    before = table.ledger.latest(SESSION)
    table.forge_insert()
    with pytest.raises(LogTamperedError, match="versions 4 to 4, which this server did not"):
        table.play(1)
    assert table.ledger.latest(SESSION) == before


def test_a_forged_insert_after_an_append_is_not_signed_with_it(table: Table) -> None:
    recorded, signed = table.play(2)
    appended = table.store.append(SESSION, [new_event()], expected_version=2)
    assert appended
    table.forge_insert()
    mine = list(table.store.read_stream(SESSION, 3))[:1]
    with pytest.raises(LogTamperedError, match="versions 4 were not appended"):
        table.ledger.extend(SESSION, mine)
    assert table.ledger.latest(SESSION) == signed


def test_a_deleted_last_event_stops_the_session(table: Table) -> None:
    table.play(3)
    before = table.ledger.latest(SESSION)
    table.drop_triggers()
    table.delete(3)
    with pytest.raises(LogTamperedError, match="lost version 3, the last of the 3 events"):
        table.play(1)
    assert table.ledger.latest(SESSION) == before
    assert table.store.current_version(SESSION) == 2  # refused before anything was appended


def test_a_last_event_replaced_by_another_path_stops_the_session(table: Table) -> None:
    table.play(3)
    before = table.ledger.latest(SESSION)
    table.drop_triggers()
    table.delete(3)
    table.store.append(SESSION, [new_event(face=20)], expected_version=2)  # past the ledger
    with pytest.raises(LogTamperedError, match="version 3 .* is not the event this server signed"):
        table.play(1)
    assert table.ledger.latest(SESSION) == before
    assert table.store.current_version(SESSION) == 3


def test_a_forged_insert_is_refused_before_the_append(table: Table) -> None:
    table.play(2)
    table.forge_insert()
    with pytest.raises(UnsignedHistoryError, match="versions 3 to 3"):
        table.play(1)
    assert table.store.current_version(SESSION) == 3  # the forged row, and nothing of ours


def test_a_deleted_earlier_event_stays_covered_by_every_later_checkpoint(table: Table) -> None:
    # Signing reads O(1) rows, so it does not look for a gap below the last signed row;
    # it grows the tree from the compact range kept with the checkpoint, which still holds
    # the deleted event: the log no longer folds to any later checkpoint, which verify names.
    table.play(4)
    signed_before = MerkleTree(table.hashes()).root()
    table.drop_triggers()
    table.delete(2)
    _, signed = table.play(1)
    assert signed.checkpoint.size == 5  # the deleted event is still counted ...
    assert table.store.current_version(SESSION) == 5
    left = table.hashes()
    assert len(left) == 4 and MerkleTree(left).root() != signed.checkpoint.root
    kept = table.ledger.checkpoint_at(SESSION, 4)
    assert kept is not None and kept.checkpoint.root == signed_before
    # ... and the new checkpoint extends the one signed before the cut, as it must.
    check_extends(kept.checkpoint, signed.checkpoint, table.ledger.consistency(SESSION, 4, 5))


def test_a_signed_row_moved_below_version_one_stops_the_session(table: Table) -> None:
    # The row count must not balance a row gone from the signed part with one put below it.
    table.play(4)
    table.drop_triggers()
    with table.engine.begin() as connection:
        connection.execute(
            events.update()
            .where(events.c.stream_id == SESSION, events.c.stream_version == 2)
            .values(stream_version=0)
        )
    with pytest.raises(LogTamperedError, match="holds a row at version 0"):
        table.play(1)
    assert table.store.current_version(SESSION) == 4


def test_a_stored_subtree_changed_in_the_database_is_not_built_on(table: Table) -> None:
    table.play(3)
    table.drop_triggers()
    with table.engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE merkle_nodes SET hash = :h WHERE level = 1"), {"h": b"\x01" * 32}
        )
    _, signed = table.play(1)  # grown from the compact range kept with the checkpoint
    assert signed.checkpoint.root == MerkleTree(table.hashes()).root()


def test_a_compact_range_changed_in_the_database_is_not_built_on(table: Table) -> None:
    table.play(3)
    table.drop_triggers()
    with table.engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE signed_checkpoints SET edge = :e WHERE tree_size = 3"),
            {"e": b"\x01" * 64},
        )
    with pytest.raises(LogTamperedError, match="no longer folds to the root it signed"):
        table.play(1)


def sign_the_latest_note_again_by_an_impostor(table: Table) -> None:
    """Replace the stored note of the latest checkpoint by the same checkpoint, signed by
    a key nobody trusts (what someone with the database but not the key can do)."""
    impostor = SigningKey.generate(key_name_for("dice.example"))
    genuine = table.ledger.latest(SESSION)
    assert genuine is not None
    table.drop_triggers()
    with table.engine.begin() as connection:
        connection.execute(
            signed_checkpoints.update().values(
                note=str(impostor.sign_checkpoint(genuine.checkpoint))
            )
        )


def test_a_checkpoint_note_replaced_in_the_database_is_not_trusted(table: Table) -> None:
    table.play(2)
    sign_the_latest_note_again_by_an_impostor(table)
    with pytest.raises(SignatureError):
        table.ledger.latest(SESSION)


def test_a_checkpoint_note_replaced_under_its_signer_is_not_built_on(table: Table) -> None:
    # The ledger that signed the note remembers it; a note changed since is checked again.
    table.play(2)
    sign_the_latest_note_again_by_an_impostor(table)
    with pytest.raises(SignatureError):
        table.play(1)
    assert table.ledger.checkpoint_at(SESSION, 3) is None


def test_the_database_refuses_a_second_root_for_a_signed_size(table: Table) -> None:
    _, signed = table.play(2)
    row = {
        "stream_id": SESSION,
        "tree_size": 2,
        "root": b"\x07" * 32,
        "note": "forged",
        "key_id": "00000000",
        "issued_at": datetime.now(UTC),
    }
    with pytest.raises(sa.exc.IntegrityError):
        with table.engine.begin() as connection:
            connection.execute(signed_checkpoints.insert(), row)
    assert table.ledger.checkpoint_at(SESSION, 2) == signed


def test_the_ledger_tables_refuse_update_and_delete(table: Table) -> None:
    table.play(2)
    for statement in ("DELETE FROM signed_checkpoints", "UPDATE merkle_nodes SET level = 9"):
        with pytest.raises(sa.exc.DatabaseError, match="append-only"):
            with table.engine.begin() as connection:
                connection.execute(sa.text(statement))


# ---- concurrency ---------------------------------------------------------------------------


def test_writers_racing_on_one_session_each_get_their_events_signed(table: Table) -> None:
    signed: list[SignedCheckpoint] = []
    failures: list[BaseException] = []

    def player(turns: int) -> None:
        for _ in range(turns):
            while True:
                try:
                    signed.append(table.play(1)[1])
                    break
                except ConcurrencyError:
                    continue
                except BaseException as error:  # reported below
                    failures.append(error)
                    return

    threads = [threading.Thread(target=player, args=(5,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert sorted(s.checkpoint.size for s in signed) == list(range(1, 21))
    final = table.ledger.latest(SESSION)
    assert final is not None and final.checkpoint.root == MerkleTree(table.hashes()).root()
    for earlier in signed:
        proof = table.ledger.consistency(SESSION, earlier.checkpoint.size)
        check_extends(earlier.checkpoint, final.checkpoint, proof)


# ---- adopting unsigned history -------------------------------------------------------------


def test_a_session_recorded_before_signing_is_adopted_once_then_extended(table: Table) -> None:
    table.store.append(SESSION, [new_event(face=n) for n in range(7)], expected_version=0)
    with pytest.raises(LogTamperedError, match="versions 1 to 7"):
        table.play(1)  # refused, appending nothing: the ledger never saw versions 1 to 7
    adopted = table.ledger.adopt(SESSION)
    assert adopted.checkpoint.size == 7
    assert adopted.checkpoint.root == MerkleTree(table.hashes()).root()
    _, signed = table.play(2)
    check_extends(adopted.checkpoint, signed.checkpoint, table.ledger.consistency(SESSION, 7))
    assert table.ledger.adopt(SESSION) == signed  # nothing left to adopt


def test_adopting_refuses_rows_that_break_the_chain(table: Table) -> None:
    table.play(2)
    forged = table.forge_insert()
    with table.engine.begin() as connection:
        connection.execute(
            events.insert(),
            [to_row(forged) | {"event_id": str(uuid.uuid4()), "stream_version": 4}],
        )
    with pytest.raises(LogTamperedError, match="prev_hash"):
        table.ledger.adopt(SESSION)
    latest = table.ledger.latest(SESSION)
    assert latest is not None and latest.checkpoint.size == 2

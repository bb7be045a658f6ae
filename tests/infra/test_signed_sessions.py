"""The application signs every append, refuses to sign what it did not append, and proves it.

Played through ``Application`` on SQLite and PostgreSQL, as the CLI and the server use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from diceledger.domain.audit import Claim
from diceledger.domain.checkpoint import Checkpoint, SignedCheckpoint, check_extends, session_of
from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import (
    LogTamperedError,
    NotFoundError,
    UnsignedHistoryError,
    VerificationError,
)
from diceledger.domain.merkle import MerkleTree, verify_consistency, verify_inclusion
from diceledger.domain.receipt import Receipt, verify_receipt
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.domain.signed_note import SignedNote
from diceledger.infra.app.application import Application
from diceledger.infra.app.verification import Reader
from diceledger.infra.bootstrap import bootstrap, in_memory
from diceledger.infra.ledger.checkpoint_ledger import CheckpointLedger
from diceledger.infra.ledger.signed_heads import Head, SignedHeads
from diceledger.infra.ledger.signing import Keyring, ed25519_check, open_signed_checkpoint
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import SeedVault
from tests.infra.owner_rights import Owner
from tests.infra.support import database_url

CHECK = cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12))


@dataclass
class Signed:
    """An application on a SQL store with its own signing key, and the store's URL."""

    app: Application
    url: str
    keyring: Keyring
    engines: list[Engine] = field(default_factory=list)

    def opened(self, note: str | None) -> SignedCheckpoint:
        assert note is not None
        return open_signed_checkpoint(note, self.keyring.trusted())

    def owner(self, session_id: str) -> Owner:
        self.engines.append(make_engine(self.url))
        return Owner(self.engines[-1], session_id)

    def table(self) -> str:
        sid = self.app.start_session("gm", "Tomb of Ash").session_id
        self.app.join("ann", sid, cmd.JoinSession("ann", "ann's words"))
        self.app.request_roll("ann", sid, CHECK)
        return sid

    def records(self, session_id: str) -> list[RecordedEvent]:
        engine = make_engine(self.url)
        try:
            return list(SqlEventStore(engine).read_stream(session_id))
        finally:
            engine.dispose()

    def version(self, session_id: str) -> int:
        return self.app.session("gm", session_id).version


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def signed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Signed]:
    url = database_url(request.param, request)
    assert url is not None
    key = tmp_path / "signing.key"
    built = Signed(bootstrap(url, signing_key=key), url, Keyring(key))
    try:
        yield built
    finally:
        built.app.close()
        for engine in built.engines:
            engine.dispose()


def test_every_command_answers_with_the_checkpoint_it_produced(signed: Signed) -> None:
    app = signed.app
    started = app.start_session("gm", "Tomb of Ash")
    sid = started.session_id
    notes = [
        started.checkpoint,
        app.join("ann", sid, cmd.JoinSession("ann")).checkpoint,
        app.request_roll("ann", sid, CHECK).checkpoint,
        app.open_dispute("ann", sid, 1, "it fell").checkpoint,
        app.resolve_dispute("gm", sid, cmd.ResolveDispute(1, cmd.Ruling.UPHELD)).checkpoint,
        app.reveal_seed("gm", sid).checkpoint,
        app.end_session("gm", sid).checkpoint,
    ]
    heads = [signed.opened(note) for note in notes]
    sizes = [head.checkpoint.size for head in heads]
    assert sizes == sorted(set(sizes)) and sizes[-1] == signed.version(sid)
    assert heads[-1].checkpoint.origin == f"{signed.keyring.current().name}/{sid}"
    leaves = [bytes.fromhex(r.hash) for r in signed.records(sid)]
    assert heads[-1].checkpoint.root == MerkleTree(leaves).root()
    for earlier in heads[:-1]:
        proof = app.proofs.consistency(sid, earlier.checkpoint.size).proof
        check_extends(earlier.checkpoint, heads[-1].checkpoint, proof)


def test_the_in_memory_application_signs_nothing() -> None:
    app = in_memory()
    started = app.start_session("gm", "Tomb of Ash")
    assert started.checkpoint is None
    with pytest.raises(NotFoundError, match="signs no checkpoints"):
        app.proofs.checkpoint(started.session_id)


def test_a_forged_insert_stops_the_session_loudly_and_nothing_is_appended(
    signed: Signed,
) -> None:
    sid = signed.table()
    before = signed.app.proofs.latest(sid)
    owner = signed.owner(sid)
    owner.forge_insert()  # the events table takes INSERTs: no trigger stands in the way
    forged_at = owner.store.current_version(sid)
    with pytest.raises(UnsignedHistoryError, match=f"versions {forged_at} to {forged_at}"):
        signed.app.request_roll("ann", sid, CHECK)
    assert owner.store.current_version(sid) == forged_at
    assert signed.app.proofs.latest(sid) == before


def test_a_deleted_row_stops_the_session_loudly_and_nothing_is_appended(signed: Signed) -> None:
    sid = signed.table()
    before = signed.app.proofs.latest(sid)
    owner = signed.owner(sid)
    owner.drop_triggers()
    size = owner.store.current_version(sid)
    owner.delete_after(size - 1)
    with pytest.raises(LogTamperedError, match=f"lost version {size}, the last of the {size}"):
        signed.app.request_roll("ann", sid, CHECK)
    assert owner.store.current_version(sid) == size - 1
    assert signed.app.proofs.latest(sid) == before


def test_a_session_from_before_signing_is_refused_until_an_operator_adopts_it(
    signed: Signed,
) -> None:
    engine = make_engine(signed.url)
    unsigned = Application(SqlEventStore(engine), SeedVault(engine), "old", engine)
    sid = unsigned.start_session("gm", "Older than the ledger").session_id
    unsigned.join("ann", sid, cmd.JoinSession("ann"))
    with pytest.raises(UnsignedHistoryError, match="versions 1 to 4"):
        signed.app.request_roll("ann", sid, CHECK)
    assert signed.version(sid) == 4  # refused before anything was appended
    assert signed.app.proofs.unsigned_sessions() == [sid]
    adopted = signed.app.proofs.adopt(sid)
    assert adopted.adopted == 4
    rolled = signed.app.request_roll("ann", sid, CHECK)
    assert signed.opened(rolled.checkpoint).checkpoint.size == signed.version(sid)
    assert signed.app.proofs.unsigned_sessions() == []
    engine.dispose()


def test_adoption_refuses_a_session_that_does_not_verify(signed: Signed) -> None:
    sid = signed.table()
    owner = signed.owner(sid)
    owner.forge_insert("RollForged", roll_id=1)  # no event of the session's: it cannot verify
    with pytest.raises(VerificationError, match="does not verify .*nothing signed"):
        signed.app.proofs.adopt(sid)
    assert signed.app.proofs.unsigned_sessions() == [sid]


def test_an_inclusion_proof_by_store_position_leads_to_the_signed_root(signed: Signed) -> None:
    sid = signed.table()
    head = signed.app.proofs.checkpoint(sid).signed.checkpoint
    for record in signed.records(sid):
        shown = signed.app.proofs.inclusion(sid, record.position)
        assert shown.event.stream_version == record.stream_version
        verify_inclusion(bytes.fromhex(record.hash), shown.proof, head.root)
    with pytest.raises(NotFoundError, match="no event at position"):
        signed.app.proofs.inclusion(sid, 10**6)


def test_a_consistency_proof_joins_any_two_signed_sizes(signed: Signed) -> None:
    sid = signed.table()
    first = signed.app.proofs.checkpoint(sid).signed.checkpoint
    signed.app.request_roll("ann", sid, CHECK)
    later = signed.app.proofs.consistency(sid, first.size)
    assert later.checkpoint is not None
    verify_consistency(later.proof, first.root, signed.opened(later.checkpoint).checkpoint.root)


def test_a_receipt_holds_the_rolls_events_its_seed_commitment_and_the_rollers_join(
    signed: Signed,
) -> None:
    sid = signed.table()
    receipt = Receipt.parse(signed.app.proofs.receipt("ann", sid, 1).to_json())
    kinds = [entry.record["event_type"] for entry in receipt.entries if entry.record is not None]
    assert kinds[:3] == ["SeedCommitted", "PlayerJoined", "RollRequested"]
    assert kinds[-1] == "CheckResolved"
    assert receipt.verifier_key == str(signed.keyring.current().verifier)
    verify_receipt(receipt, signed.keyring.trusted(), ed25519_check)


def test_a_hidden_blind_rolls_receipt_is_for_a_gm_only(signed: Signed) -> None:
    sid = signed.table()
    blind = cmd.RequestRoll(
        RollKind.CHECK, "1d20", target=Target(10), mode=RollMode.BLIND, on_behalf_of="orc"
    )
    roll_id = signed.app.request_roll("gm", sid, blind).roll.roll_id
    with pytest.raises(NotFoundError, match=f"no roll {roll_id}"):
        signed.app.proofs.receipt("ann", sid, roll_id)
    assert signed.app.proofs.receipt("gm", sid, roll_id).entries
    signed.app.reveal_roll("gm", sid, roll_id)
    assert signed.app.proofs.receipt("ann", sid, roll_id).entries


def test_an_export_carries_the_checkpoint_of_exactly_its_events(signed: Signed) -> None:
    sid = signed.table()
    exported = signed.app.export("gm", sid)
    assert exported.proof is not None
    (note,) = exported.proof.checkpoints
    assert signed.opened(note).checkpoint.size == exported.events == len(list(exported.lines))
    assert exported.proof.verifier_keys == tuple(str(k) for k in signed.keyring.trusted())


def test_the_audit_names_a_rewritten_log_against_a_kept_checkpoint(signed: Signed) -> None:
    sid = signed.table()
    kept = Claim("ann's", str(signed.app.proofs.checkpoint(sid).signed))
    assert signed.app.verify_session(sid, Reader(kept=(kept,))).ok
    owner = signed.owner(sid)
    owner.drop_triggers()
    size = owner.store.current_version(sid)
    owner.rewind(size - 3)  # the roll's events, and its checkpoints, gone
    audit = signed.app.verify_session(sid, Reader(kept=(kept,))).audit
    assert not audit.ok
    # ann's kept checkpoint names the removal; the store's own latest one may fail too,
    # depending on whether the rewind reached the rows of its checkpoints.
    failed = {finding.source: finding.detail for finding in audit.findings if not finding.ok}
    assert "events were removed" in failed["ann's"]


@dataclass
class RememberedHeads:
    """A head anchor as a heads file beside the key would be: what was signed, per session."""

    heads: dict[str, Head] = field(default_factory=dict)
    source: str = "the heads remembered beside the key"

    def latest(self, stream_id: str) -> Head | None:
        return self.heads.get(stream_id)

    def remember(self, note: str | None) -> None:
        assert note is not None
        checkpoint = Checkpoint.parse(SignedNote.parse(note).text)
        self.heads[session_of(checkpoint.origin)] = Head(checkpoint.size, checkpoint.root)


def test_a_head_anchor_catches_a_ledger_cut_back_and_signed_again(
    signed: Signed, tmp_path: Path
) -> None:
    engine = make_engine(signed.url)
    signed.engines.append(engine)
    anchor = RememberedHeads()
    ledger = CheckpointLedger(engine, signed.keyring)
    app = Application(
        SqlEventStore(engine),
        SeedVault(engine),
        "anchored",
        engine,
        ledger=ledger,
        keyring=signed.keyring,
        anchors=(anchor,),
    )
    sid = app.start_session("gm", "Tomb of Ash").session_id
    app.join("ann", sid, cmd.JoinSession("ann"))
    anchor.remember(app.request_roll("ann", sid, CHECK).checkpoint)
    assert app.verify_session(sid).ok
    owner = signed.owner(sid)
    owner.drop_triggers()
    records = list(owner.store.read_stream(sid))
    before_roll = next(r.stream_version for r in records if r.event_type == "RollRequested") - 1
    owner.rewind(before_roll)  # the roll (however many dice), its tree and checkpoints, gone
    owner.forge_insert("PlayerJoined", name="eve", role="player", client_seed="e", added_by="eve")
    # The key's holder signs the other log with a ledger that keeps no heads of its own (its
    # file gone with the cut): only a witness elsewhere, the anchor, still remembers.
    forgetful = SignedHeads(
        tmp_path / "signed-heads", lambda: [signed.keyring.current().key_id.hex()]
    )
    CheckpointLedger(engine, signed.keyring, heads=forgetful).adopt(sid)
    verdict = app.verify_session(sid)
    assert not verdict.ok
    failed = {f.source: f.detail for f in verdict.audit.findings if not f.ok}
    assert set(failed) == {anchor.source}
    assert "remembers" in failed[anchor.source] and "events were removed" in failed[anchor.source]


def test_a_roll_cut_with_its_ledger_rows_is_refused_rather_than_signed_as_a_fork(
    signed: Signed, caplog: pytest.LogCaptureFixture
) -> None:
    sid = signed.table()
    owner = signed.owner(sid)
    signed_size = owner.store.current_version(sid)
    root = signed.app.proofs.checkpoint(sid).signed.checkpoint.root
    records = list(owner.store.read_stream(sid))
    # The roll's events: three, or more when its d20 explodes (the dice are the server's).
    cut = next(r.stream_version for r in records if r.event_type == "RollRequested") - 1
    owner.drop_triggers()
    owner.rewind(cut)  # the last roll, its Merkle nodes and its checkpoints
    # A server started afresh on the cut database: only the heads file remembers.
    restarted = bootstrap(signed.url, signing_key=signed.keyring.path)
    try:
        with pytest.raises(LogTamperedError, match="refusing to sign a fork"):
            restarted.request_roll("ann", sid, CHECK)
        latest = signed.opened(restarted.proofs.latest(sid))
        assert latest.checkpoint.size == cut  # nothing signed
    finally:
        restarted.close()
    assert owner.store.current_version(sid) == cut
    refusal = next(r.getMessage() for r in caplog.records if "REFUSING TO SIGN" in r.getMessage())
    assert f"{cut} events" in refusal and f"{signed_size} events" in refusal
    assert root.hex() in refusal

"""The use cases of signed logs: keys, checkpoints, Merkle proofs, receipts and adoption.

Every face reaches them as ``Application.proofs``. They read what the checkpoint ledger
signed; only ``adopt`` signs, and only events that verify, as an operator's decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from diceledger.domain.checkpoint import SignedCheckpoint
from diceledger.domain.errors import NotFoundError, VerificationError
from diceledger.domain.merkle import ConsistencyProof, InclusionProof
from diceledger.domain.receipt import roll_epochs
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session.visibility import may_see
from diceledger.domain.signed_note import VerifierKey
from diceledger.domain.trust import Retired
from diceledger.infra.app.sessions import SessionService
from diceledger.infra.ledger.checkpoint_ledger import CheckpointLedger
from diceledger.infra.ledger.signing import Keyring, Rotation
from diceledger.infra.store.port import EventStore

# Exports and receipts import what they need when they run: every command that
# appends checks its checkpoint here, and would pay for them at start-up otherwise.
if TYPE_CHECKING:
    from diceledger.domain.export_proof import ExportProof
    from diceledger.domain.receipt import Receipt


@dataclass(frozen=True, slots=True)
class CheckpointResult:
    """A session's latest signed checkpoint and the key that signed it."""

    session_id: str
    signed: SignedCheckpoint
    verifier_key: VerifierKey

    @property
    def note(self) -> str:
        """Return the signed note, verbatim."""
        return str(self.signed)


@dataclass(frozen=True, slots=True)
class InclusionResult:
    """The proof that one event is in the session's signed tree of ``proof.size`` events."""

    session_id: str
    event: RecordedEvent
    proof: InclusionProof
    checkpoint: str | None  # the signed checkpoint of that tree size, if one was signed


@dataclass(frozen=True, slots=True)
class ConsistencyResult:
    """The proof that the session's tree of ``old_size`` events is a prefix of ``new_size``."""

    session_id: str
    proof: ConsistencyProof
    checkpoint: str | None  # the signed checkpoint of the new size, if one was signed


@dataclass(frozen=True, slots=True)
class AdoptResult:
    """Events an operator had signed after they verified: how many, and the checkpoint."""

    session_id: str
    adopted: int
    checkpoint: str


@dataclass(frozen=True, slots=True)
class Keys:
    """The server's verifier keys: the one signing now, and those retired."""

    current: VerifierKey
    retired: tuple[VerifierKey, ...]
    rotations: tuple[Rotation, ...] = ()


class Proofs:
    """Checkpoints, proofs and receipts of the sessions of one store."""

    def __init__(
        self,
        store: EventStore,
        sessions: SessionService,
        ledger: CheckpointLedger | None,
        keyring: Keyring | None,
    ) -> None:
        self._store = store
        self._sessions = sessions
        self._ledger = ledger
        self._keyring = keyring

    @property
    def signing(self) -> bool:
        """Tell whether this store signs its sessions' logs."""
        return self._ledger is not None

    def keys(self) -> Keys:
        """Return the server's verifier keys, current and retired, and its rotations."""
        keyring = self._signing()[1]
        return Keys(keyring.current().verifier, keyring.retired(), keyring.rotations())

    def rotate_key(self) -> Rotation:
        """Retire the signing key at every session's signed size; sign with a new one.

        Run it with the server stopped: a running server keeps the key it read.
        """
        ledger, keyring = self._signing()
        sizes = {}
        for session_id in self._store.stream_ids():
            latest = ledger.latest(session_id)
            if latest is not None:
                sizes[session_id] = latest.checkpoint.size
        return keyring.rotate(sizes)

    def trusted(self) -> tuple[VerifierKey, ...]:
        """Return the keys whose checkpoints this store vouches for (none if it signs none).

        Reading them never creates a key: a store that has signed nothing trusts nothing.
        """
        return () if self._keyring is None else self._keyring.known()

    def retired(self) -> tuple[Retired, ...]:
        """Return the retired keys with the signed sizes each may still vouch for."""
        return () if self._keyring is None else self._keyring.retirements()

    def latest(self, session_id: str) -> str | None:
        """Return the session's latest signed checkpoint note (None when it has none)."""
        signed = None if self._ledger is None else self._ledger.latest(session_id)
        return None if signed is None else str(signed)

    def signed_at(self, session_id: str, size: int) -> str | None:
        """Return the checkpoint note signed for the session's first ``size`` events, if any."""
        signed = None if self._ledger is None else self._ledger.checkpoint_at(session_id, size)
        return None if signed is None else str(signed)

    def checkpoint(self, session_id: str) -> CheckpointResult:
        """Return the session's latest signed checkpoint."""
        ledger, keyring = self._signing()
        signed = ledger.latest(session_id)
        if signed is None:
            self._sessions.load(session_id)  # an unknown session says so
            raise NotFoundError(f"session '{session_id}' has no signed checkpoint yet")
        return CheckpointResult(session_id, signed, keyring.signer_of(signed))

    def inclusion(self, session_id: str, position: int, size: int | None = None) -> InclusionResult:
        """Return the proof that the event at store ``position`` is in the signed tree."""
        ledger = self._signing()[0]
        # Read to the end: a reader left open would hold its database connection.
        found = [r for r in self._store.read_stream(session_id) if r.position == position]
        if not found:
            raise NotFoundError(f"session '{session_id}' has no event at position {position}")
        event = found[0]
        proof = ledger.inclusion(session_id, event.stream_version - 1, size)
        signed = ledger.checkpoint_at(session_id, proof.size)
        return InclusionResult(session_id, event, proof, None if signed is None else str(signed))

    def consistency(
        self, session_id: str, old_size: int, new_size: int | None = None
    ) -> ConsistencyResult:
        """Return the proof that the tree of ``old_size`` events is a prefix of ``new_size``."""
        ledger = self._signing()[0]
        proof = ledger.consistency(session_id, old_size, new_size)
        signed = ledger.checkpoint_at(session_id, proof.new_size)
        return ConsistencyResult(session_id, proof, None if signed is None else str(signed))

    def receipt(self, viewer: str, session_id: str, roll_id: int) -> Receipt:
        """Return a roll's receipt: every event of it, with what a reader needs to check it.

        It holds the log from the roll's request to the event after its last one (a hidden
        blind roll's events in that range sealed for a player), the commitment and reveal
        of every epoch its dice came from, and the roller's joins (the client seed). A
        hidden blind roll has a receipt for a GM only.
        """
        from diceledger.domain.receipt import build_receipt
        from diceledger.domain.session.visibility import hidden_from

        ledger, keyring = self._signing()
        with self._sessions.locked(session_id):
            state = self._sessions.load(session_id)
            roll = state.rolls.get(roll_id)
            if roll is None or not may_see(state, roll, viewer):
                raise NotFoundError(f"no roll {roll_id} in session '{session_id}'")
            sealed = hidden_from(state, viewer)
        signed = ledger.latest(session_id)
        if signed is None:
            raise NotFoundError(f"session '{session_id}' has no signed checkpoint yet")
        size = signed.checkpoint.size
        signed_records = [
            r for r in self._store.read_stream(session_id) if r.stream_version <= size
        ]
        chosen = receipt_events(signed_records, roll.request.roller, roll_id)
        proofs = [(r, ledger.inclusion(session_id, r.stream_version - 1, size)) for r in chosen]
        return build_receipt(signed, proofs, keyring.signer_of(signed), sealed)

    def export_proof(self, session_id: str, events: int) -> ExportProof | None:
        """Return the proof of an export of the session's first ``events`` events, if signed."""
        from diceledger.domain.export_proof import ExportProof

        if self._ledger is None or self._keyring is None:
            return None
        signed = self._ledger.checkpoint_at(session_id, events)
        if signed is None:
            return None
        keys = tuple(str(key) for key in self._keyring.trusted())
        return ExportProof((str(signed),), keys)

    def adopt(self, session_id: str) -> AdoptResult:
        """Sign a session's unsigned events after they verify (an operator's decision)."""
        from diceledger.infra.app.verification import verify_log

        ledger = self._signing()[0]
        with ledger.exclusive(session_id):
            report = verify_log(self._store, session_id)
            failure = report.first_failure
            if failure is not None:
                raise VerificationError(
                    f"session '{session_id}' does not verify at {failure}; nothing signed"
                )
            before = ledger.latest(session_id)
            signed = ledger.adopt(session_id)
        adopted = signed.checkpoint.size - (0 if before is None else before.checkpoint.size)
        return AdoptResult(session_id, adopted, str(signed))

    def unsigned_sessions(self) -> list[str]:
        """Return the sessions holding events past their last checkpoint (or with none)."""
        ledger = self._signing()[0]
        found = []
        for session_id in self._store.stream_ids():
            latest = ledger.latest(session_id)
            signed = 0 if latest is None else latest.checkpoint.size
            if self._store.current_version(session_id) != signed:
                found.append(session_id)
        return found

    def _signing(self) -> tuple[CheckpointLedger, Keyring]:
        if self._ledger is None or self._keyring is None:
            raise NotFoundError("this store signs no checkpoints (it keeps no ledger)")
        return self._ledger, self._keyring


def receipt_events(
    records: Sequence[RecordedEvent], roller: str, roll_id: int
) -> list[RecordedEvent]:
    """Return the events a roll's receipt holds, in stream order.

    Every event from the roll's request to its last one and the event after that (so a
    reader sees none of the roll's was left out: ``domain.receipt.check_complete``); the
    commitment and reveal of every epoch its dice came from; the roller's joins
    before the roll (they carry the client seed the dice were drawn with).
    """
    own = [r.stream_version for r in records if r.data.get("roll_id") == roll_id]
    requested = next(
        (
            r.stream_version
            for r in records
            if r.event_type == "RollRequested" and r.data.get("roll_id") == roll_id
        ),
        None,
    )
    if requested is None:
        raise NotFoundError(f"roll {roll_id} is not in the signed log yet")
    last = max(own) + 1
    epochs = roll_epochs(
        (r.event_type, r.data) for r in records if r.data.get("roll_id") == roll_id
    )

    def belongs(record: RecordedEvent) -> bool:
        data, kind = record.data, record.event_type
        if requested <= record.stream_version <= last:
            return True
        if kind in ("SeedCommitted", "SeedRevealed"):
            return bool(data.get("epoch") in epochs)
        joined = kind == "PlayerJoined" and data.get("name") == roller
        return joined and record.stream_version < requested

    return [record for record in records if belongs(record)]

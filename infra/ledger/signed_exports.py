"""Exports with their proof beside them, and imports that take in only signed history.

An export (``tomb.jsonl``) keeps the JSON Lines format every reader knows; its proof
(``domain.export_proof``) is written beside it as ``tomb.jsonl.proof.json``. An import
extends or creates a session only when the proof's checkpoint for it is signed by a key
the importing store trusts and heads exactly the file's events; the store then signs the
imported events under its own key, after checking that its stream is exactly what it
signed before plus those events. A key the store retired vouches only for what it had
signed when it retired. Without a trusted checkpoint, a session new to the store
may be imported only when the importer says so (``allow_unsigned``); a continuation of a
session the store holds, never.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from diceledger.domain.checkpoint import SignedCheckpoint
from diceledger.domain.errors import CommandRefusedError, MalformedError
from diceledger.domain.export_proof import ExportProof, check_export
from diceledger.domain.signed_note import VerifierKey
from diceledger.domain.trust import Retired, check_not_retired
from diceledger.infra.ledger.checkpoint_ledger import CheckpointLedger
from diceledger.infra.ledger.signing import ed25519_check
from diceledger.infra.store.exporting import check_importable, checked_lines, read_export
from diceledger.infra.store.port import EventStore

PROOF_SUFFIX = ".proof.json"


def proof_path(export: str | Path) -> Path:
    """Return where an export's proof is written: beside it, with ``.proof.json`` added."""
    path = Path(export)
    return path.with_name(path.name + PROOF_SUFFIX)


def write_proof(proof: ExportProof, path: str | Path) -> None:
    """Write an export's proof through a temporary file."""
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    partial.write_text(proof.to_json(), encoding="utf-8")
    partial.replace(target)


def read_proof(path: str | Path) -> ExportProof | None:
    """Return the proof at ``path``, or None when there is no such file."""
    target = Path(path)
    if not target.exists():
        return None
    try:
        return ExportProof.parse(target.read_text(encoding="utf-8"))
    except MalformedError as error:
        raise MalformedError(f"{target}: {error}") from None


def export_leaves(path: str | Path) -> dict[str, list[bytes]]:
    """Return each session's event hashes in an export, in file order (chains checked)."""
    leaves: dict[str, list[bytes]] = {}
    for record in checked_lines(path):
        leaves.setdefault(record.stream_id, []).append(bytes.fromhex(record.hash))
    return leaves


@dataclass(frozen=True, slots=True)
class Imported:
    """What a signed import read, appended, and the importing store's checkpoints after it."""

    events: int
    appended: int
    checkpoints: tuple[tuple[str, str], ...]


def import_signed(
    store: EventStore,
    ledger: CheckpointLedger | None,
    path: str | Path,
    proof: ExportProof | None,
    trusted: Iterable[VerifierKey],
    allow_unsigned: bool = False,
    retired: Iterable[Retired] = (),
) -> Imported:
    """Import an export whose sessions are signed by a trusted key (see the module).

    A key in ``retired`` vouches only for each session's size when it retired.
    """
    counts = check_importable(path)
    keys = tuple(trusted)
    opened = _opened(proof, path, keys)
    for head in opened.values():
        check_not_retired(head, keys, retired)
    for session_id in counts:
        if session_id in opened:
            continue
        if store.current_version(session_id):
            raise CommandRefusedError(
                f"the export continues session '{session_id}', which this store holds, "
                "without a checkpoint signed by a key it trusts; nothing imported"
            )
        if not allow_unsigned:
            raise CommandRefusedError(
                f"the export of session '{session_id}' carries no checkpoint signed by a key "
                "this store trusts; nothing imported"
            )
    appended, checkpoints = 0, []
    for session_id in counts:
        added, signed = _import_session(store, ledger, path, session_id)
        appended += added
        if signed is not None:
            checkpoints.append((session_id, str(signed)))
    return Imported(sum(counts.values()), appended, tuple(checkpoints))


def _opened(
    proof: ExportProof | None, path: str | Path, trusted: Iterable[VerifierKey]
) -> Mapping[str, SignedCheckpoint]:
    if proof is None:
        return {}
    return check_export(proof, export_leaves(path), tuple(trusted), ed25519_check)


def _import_session(
    store: EventStore, ledger: CheckpointLedger | None, path: str | Path, session_id: str
) -> tuple[int, SignedCheckpoint | None]:
    """Append one session's new events and have the ledger sign exactly them."""
    mine = (record for record in read_export(path) if record.stream_id == session_id)
    if ledger is None:
        return store.import_recorded(mine), None
    with ledger.exclusive(session_id):
        latest = ledger.latest(session_id)
        signed_size = 0 if latest is None else latest.checkpoint.size
        added = store.import_recorded(mine)
        if not added:
            return 0, latest
        told = [
            record
            for record in read_export(path)
            if record.stream_id == session_id and record.stream_version > signed_size
        ]
        return added, ledger.extend(session_id, told)

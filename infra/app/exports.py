"""Write an export a client received from a server, with its proof beside it, as locally."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from diceledger.domain.export_proof import ExportProof
from diceledger.infra.app.results import ExportFileResult
from diceledger.infra.ledger.signed_exports import proof_path, write_proof
from diceledger.infra.store.exporting import write_lines


def save_export(
    session_id: str, lines: Iterable[str], output: Path, ended: bool, proof: ExportProof | None
) -> ExportFileResult:
    """Write ``lines`` to ``output`` and ``proof`` to FILE.proof.json beside it."""
    count = write_lines(lines, output)
    written = None
    if proof is not None:
        written = proof_path(output)
        write_proof(proof, written)
    return ExportFileResult(session_id, count, ended, written)

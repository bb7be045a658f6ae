"""The checkpoints a client keeps: each new one witnessed, each verify read with them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from diceledger.domain.audit import Claim
from diceledger.domain.signed_note import VerifierKey
from diceledger.infra.app.verification import Reader
from diceledger.infra.ledger.keeper import CheckpointKeeper, Observation, Prove

if TYPE_CHECKING:
    from diceledger.infra.app.application import Application


class KeptCheckpoints:
    """This machine's kept checkpoints, in ``folder`` (default: DICELEDGER_CHECKPOINTS, else
    the user data directory)."""

    def __init__(self, folder: Path | None = None) -> None:
        self._keeper = CheckpointKeeper.default() if folder is None else CheckpointKeeper(folder)

    def witness(self, app: Application, session_id: str, note: str) -> Observation:
        """Check ``note``, a checkpoint ``app`` answered with, extends every kept one; keep it.

        Raises a VerificationError when it is not signed by a key the store trusts or does
        not extend a kept checkpoint by the store's consistency proof; nothing is kept then.
        """
        proofs = app.proofs
        return self._keeper.observe(
            note,
            proofs.trusted(),
            lambda old, new: proofs.consistency(session_id, old, new).proof,
            proofs.retired(),
        )

    def witness_given(self, note: str, trusted: Sequence[VerifierKey], prove: Prove) -> Observation:
        """Check and keep ``note`` as ``witness`` does, with a server's keys and proofs.

        A client of a server has no store of its own: the server names its keys and proves
        each extension; the keys pinned here when the first checkpoint was kept, and the
        kept checkpoints themselves, are what a server that forked or shrank cannot pass.
        """
        return self._keeper.observe(note, trusted, prove)

    def reader(self, given: Sequence[VerifierKey], claims: Sequence[Claim] = ()) -> Reader:
        """Return a verify's reader: the keys and checkpoints given, and the ones kept here."""
        return Reader(tuple(given), tuple(claims), self._keeper)

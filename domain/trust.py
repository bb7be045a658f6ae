"""Which verifier keys a reader trusts for a document that names its own signer's keys.

Exports and receipts carry the keys that signed them, so that a reader with nothing else
can still check them; but a document cannot vouch for itself. The reader's own keys come
first: keys named on the command line, the keys of the reader's own server, keys pinned
when a checkpoint was first kept. A carried key is used only when none of those names its
server (trust on first use, reported as such); a carried key for a server the reader
already knows under another key is never used, so a log re-signed by another key fails.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from diceledger.domain.checkpoint import SignedCheckpoint
from diceledger.domain.signed_note import VerifierKey


@dataclass(frozen=True, slots=True)
class Trust:
    """The keys a check may accept, and which of them only the document itself vouches for."""

    keys: tuple[VerifierKey, ...]
    unpinned: tuple[VerifierKey, ...] = ()

    def pinned_for(self, key: VerifierKey) -> bool:
        """Tell whether ``key`` is trusted for more than the document's own word."""
        return key in self.keys and key not in self.unpinned

    def pinned_signer(self, signed: SignedCheckpoint) -> bool:
        """Tell whether a key the reader pinned (not only the document) signed ``signed``."""
        ids = {sig.key_id for sig in signed.note.signatures if sig.name == signed.signer}
        return any(
            self.pinned_for(key)
            for key in self.keys
            if key.name == signed.signer and key.key_id in ids
        )


def resolve_trust(known: Iterable[VerifierKey], carried: Iterable[VerifierKey] = ()) -> Trust:
    """Return the reader's ``known`` keys, plus each ``carried`` key of a server none names."""
    keys = list(dict.fromkeys(known))
    names = {key.name for key in keys}
    unpinned = [key for key in dict.fromkeys(carried) if key.name not in names]
    return Trust((*keys, *unpinned), tuple(unpinned))

"""Which verifier keys a reader trusts for a document that names its own signer's keys.

Exports and receipts carry the keys that signed them, so that a reader with nothing else
can still check them; but a document cannot vouch for itself. The reader's own keys come
first: keys named on the command line, the keys of the reader's own server, keys pinned
when a checkpoint was first kept. A carried key is used only when none of those names its
server (trust on first use, reported as such); a carried key for a server the reader
already knows under another key is never used, so a log re-signed by another key fails.

A key retired by a rotation vouches only for what it signed before: for each session, the
checkpoints up to the size that session's log had when the key retired.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from diceledger.domain.checkpoint import SignedCheckpoint
from diceledger.domain.errors import SignatureError
from diceledger.domain.signed_note import VerifierKey


@dataclass(frozen=True, slots=True)
class Retired:
    """A key a rotation retired, and each session's signed size when it did."""

    key: VerifierKey
    sizes: Mapping[str, int] = field(default_factory=dict)

    def covers(self, signed: SignedCheckpoint) -> bool:
        """Tell whether the key still vouches for ``signed``: not past its session's size."""
        return signed.checkpoint.size <= self.sizes.get(signed.session_id, 0)


def signers(signed: SignedCheckpoint, keys: Iterable[VerifierKey]) -> tuple[VerifierKey, ...]:
    """Return those of ``keys`` whose name and key id sign ``signed`` as its signer."""
    ids = {sig.key_id for sig in signed.note.signatures if sig.name == signed.signer}
    return tuple(key for key in keys if key.name == signed.signer and key.key_id in ids)


def check_not_retired(
    signed: SignedCheckpoint, keys: Iterable[VerifierKey], retired: Iterable[Retired]
) -> None:
    """Refuse ``signed`` when every key of ``keys`` that signed it retired before its size."""
    limits = {entry.key: entry for entry in retired}
    found = signers(signed, keys)
    if found and all(key in limits and not limits[key].covers(signed) for key in found):
        key = found[0]
        size = limits[key].sizes.get(signed.session_id, 0)
        raise SignatureError(
            f"key {key.name} ({key.key_id.hex()}) retired when session '{signed.session_id}' "
            f"had {size} signed events; it cannot sign a checkpoint of "
            f"{signed.checkpoint.size}"
        )


@dataclass(frozen=True, slots=True)
class Trust:
    """The keys a check may accept, and which of them only the document itself vouches for."""

    keys: tuple[VerifierKey, ...]
    unpinned: tuple[VerifierKey, ...] = ()
    retired: tuple[Retired, ...] = ()

    def pinned_for(self, key: VerifierKey) -> bool:
        """Tell whether ``key`` is trusted for more than the document's own word."""
        return key in self.keys and key not in self.unpinned

    def pinned_signer(self, signed: SignedCheckpoint) -> bool:
        """Tell whether a key the reader pinned (not only the document) signed ``signed``."""
        return any(self.pinned_for(key) for key in signers(signed, self.keys))

    def check(self, signed: SignedCheckpoint) -> None:
        """Refuse ``signed`` if only keys retired before its size signed it."""
        check_not_retired(signed, self.keys, self.retired)


def resolve_trust(
    known: Iterable[VerifierKey],
    carried: Iterable[VerifierKey] = (),
    retired: Iterable[Retired] = (),
) -> Trust:
    """Return the reader's ``known`` keys, plus each ``carried`` key of a server none names."""
    keys = list(dict.fromkeys(known))
    names = {key.name for key in keys}
    unpinned = [key for key in dict.fromkeys(carried) if key.name not in names]
    return Trust((*keys, *unpinned), tuple(unpinned), tuple(retired))

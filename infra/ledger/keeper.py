"""The checkpoints a client keeps: the latest of each session, per server key, on disk.

A kept checkpoint is what lets its holder prove later that a log was cut short or
rewritten. The folder (``DICELEDGER_CHECKPOINTS``, else ``checkpoints`` in the user data
directory) holds one subfolder per signing key, named by its key id, with the key itself
(``key``: pinned the first time a checkpoint of that key was kept) and one file per
session holding the signed note, verbatim:

    checkpoints/<key id>/key
    checkpoints/<key id>/<session id>.checkpoint

``observe`` checks each new checkpoint against every kept one of the same log (same
origin, whichever trusted key signed it) with a consistency proof before keeping it; a
checkpoint that fails is never kept, so the evidence stays.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from diceledger.domain.checkpoint import SignedCheckpoint, check_extends, open_checkpoint
from diceledger.domain.errors import KeyFileError, MalformedError, ProofError, SignatureError
from diceledger.domain.merkle import ConsistencyProof
from diceledger.domain.signed_note import VerifierKey
from diceledger.domain.trust import Retired, check_not_retired
from diceledger.infra.ledger.signing import ed25519_check

ENV_VAR = "DICELEDGER_CHECKPOINTS"
SUFFIX = ".checkpoint"
KEY_FILE = "key"
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")

# (old size, new size) -> the store's consistency proof between them.
Prove = Callable[[int, int], ConsistencyProof]


@dataclass(frozen=True, slots=True)
class Observation:
    """A checkpoint checked against the kept ones: how many there were, the largest size."""

    checkpoint: SignedCheckpoint
    compared: int
    kept_size: int | None  # the largest size kept before, None on first sight


class CheckpointKeeper:
    """Keep the latest checkpoint of each session, per signing key, in a folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def default(cls) -> CheckpointKeeper:
        """Return the keeper at DICELEDGER_CHECKPOINTS, else in the user data directory."""
        named = os.environ.get(ENV_VAR)
        if named:
            return cls(Path(named).expanduser())
        return cls(Path(platformdirs.user_data_dir("diceledger")) / "checkpoints")

    def path_for(self, key: VerifierKey, session_id: str) -> Path:
        """Return the file that keeps ``session_id``'s checkpoint signed by ``key``."""
        return self.folder / key.key_id.hex() / (_file_name(session_id) + SUFFIX)

    def pinned(self) -> tuple[VerifierKey, ...]:
        """Return every key pinned by a checkpoint kept before."""
        keys = []
        for path in sorted(self.folder.glob(f"*/{KEY_FILE}")):
            try:
                keys.append(VerifierKey.parse(path.read_text(encoding="utf-8").strip()))
            except (OSError, MalformedError) as error:
                raise KeyFileError(f"pinned key {path}: {error}") from None
        return tuple(keys)

    def kept(self, session_id: str) -> list[tuple[Path, str]]:
        """Return every kept note of ``session_id`` (one per key), with its file."""
        name = _file_name(session_id) + SUFFIX
        return [
            (path, path.read_text(encoding="utf-8"))
            for path in sorted(self.folder.glob(f"*/{name}"))
        ]

    def keep(self, signed: SignedCheckpoint, key: VerifierKey) -> Path:
        """Keep ``signed`` as the latest of its session for ``key``; pin the key."""
        path = self.path_for(key, signed.session_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        pin = path.parent / KEY_FILE
        if not pin.exists():
            _write(pin, f"{key}\n")
        _write(path, str(signed))
        return path

    def observe(
        self,
        note: str,
        trusted: Iterable[VerifierKey],
        prove: Prove,
        retired: Iterable[Retired] = (),
    ) -> Observation:
        """Check a new checkpoint's signature and that it extends every kept one; keep it.

        Raises SignatureError when no trusted key signed it (or only a key in ``retired``,
        past the size it retired at), ProofError (naming the kept file) when the log it
        heads does not extend a kept checkpoint; nothing is kept then.
        """
        keys = (*trusted, *self.pinned())
        try:
            signed = open_checkpoint(note, keys, ed25519_check)
            check_not_retired(signed, keys, retired)
        except SignatureError as error:
            raise SignatureError(f"a checkpoint this machine was given: {error}") from None
        compared, largest = 0, None
        for path, kept_note in self.kept(signed.session_id):
            kept = open_checkpoint(kept_note, keys, ed25519_check)
            if kept.checkpoint.origin != signed.checkpoint.origin:
                continue  # another server's log of a session with the same id
            old, new = kept.checkpoint.size, signed.checkpoint.size
            try:
                if old > new:
                    raise ProofError(f"the log shrank from {old} to {new} events")
                check_extends(kept.checkpoint, signed.checkpoint, prove(old, new))
            except ProofError as error:
                raise ProofError(
                    f"session '{signed.session_id}': the checkpoint of {new} events does not "
                    f"extend the one of {old} events kept in {path}: {error}"
                ) from None
            compared += 1
            largest = old if largest is None else max(largest, old)
        self.keep(signed, _signer(signed, keys))
        return Observation(signed, compared, largest)


def _signer(signed: SignedCheckpoint, keys: Iterable[VerifierKey]) -> VerifierKey:
    ids = {sig.key_id for sig in signed.note.signatures if sig.name == signed.signer}
    return next(key for key in keys if key.name == signed.signer and key.key_id in ids)


def _file_name(session_id: str) -> str:
    """Return a file name for a session id: itself when plain, else a hash of it."""
    if _PLAIN_NAME.fullmatch(session_id):
        return session_id
    return "sha256-" + hashlib.sha256(session_id.encode("utf-8")).hexdigest()


def _write(path: Path, text: str) -> None:
    """Write through a temporary file, so a reader never sees half a checkpoint."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)

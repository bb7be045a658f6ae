"""C2SP tlog-checkpoints: a session's signed tree head, and checks a client makes with it.

The body of a checkpoint is three or more lines, each ending in a newline:

    <origin>                       <key name>/<session id>
    <tree size>                    decimal, no leading zeros
    <root hash>                    standard base64 of the 32-byte RFC 9162 root
    [<extension line> ...]         non-empty, opaque

A checkpoint travels as a signed note (``domain.signed_note``) signed by the server's key.
The origin is the key's name, a slash and the session id, so a checkpoint names both who
signed it and which session's tree it heads; one key serves every session of a server.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from diceledger.domain.errors import MalformedError, ProofError, SignatureError
from diceledger.domain.merkle import HASH_SIZE, ConsistencyProof, MerkleTree, verify_consistency
from diceledger.domain.signed_note import (
    SignatureCheck,
    SignedNote,
    VerifierKey,
    decode_base64,
    encode_base64,
    verify_note,
)

ORIGIN_SEPARATOR = "/"


def origin_for(key_name: str, session_id: str) -> str:
    """Return the origin line of a session's checkpoints signed under ``key_name``."""
    return f"{key_name}{ORIGIN_SEPARATOR}{session_id}"


def session_of(origin: str) -> str:
    """Return the session an origin names: what follows its last slash.

    A session id holds no slash (it is one segment of every URL of the session), so the
    key's name is everything before.
    """
    return origin.rpartition(ORIGIN_SEPARATOR)[2]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A Merkle tree head: which log (origin), how many leaves (size), and the root."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.origin or "\n" in self.origin:
            raise MalformedError("a checkpoint's origin must be one non-empty line")
        if self.size < 0:
            raise MalformedError("a checkpoint's tree size cannot be negative")
        if len(self.root) != HASH_SIZE:
            raise MalformedError(f"a checkpoint's root hash has {HASH_SIZE} bytes")
        if any(not line or "\n" in line for line in self.extensions):
            raise MalformedError("a checkpoint's extension lines must be non-empty lines")

    def text(self) -> str:
        """Return the checkpoint's note text, final newline included."""
        lines = [self.origin, str(self.size), encode_base64(self.root), *self.extensions]
        return "".join(line + "\n" for line in lines)

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """Read a checkpoint's note text strictly."""
        if not text.endswith("\n"):
            raise MalformedError("a checkpoint's text must end with a newline")
        lines = text[:-1].split("\n")
        if len(lines) < 3:
            raise MalformedError("a checkpoint needs an origin, a tree size and a root hash")
        origin, size, root, *extensions = lines
        if not size.isascii() or not size.isdigit() or (size != "0" and size.startswith("0")):
            raise MalformedError(f"a checkpoint's tree size must be a plain decimal: {size!r}")
        return cls(origin, int(size), decode_base64(root, "root hash"), tuple(extensions))


@dataclass(frozen=True, slots=True)
class SignedCheckpoint:
    """A checkpoint, the signed note that carries it, and the name of the key it is for."""

    checkpoint: Checkpoint
    note: SignedNote
    signer: str

    def __post_init__(self) -> None:
        prefix = self.signer + ORIGIN_SEPARATOR
        origin = self.checkpoint.origin
        if not origin.startswith(prefix) or origin[len(prefix) :] != session_of(origin):
            raise SignatureError(f"checkpoint origin {origin!r} is not a session of {self.signer}")
        if Checkpoint.parse(self.note.text) != self.checkpoint:
            raise MalformedError("the signed note does not carry this checkpoint")

    def __str__(self) -> str:
        return str(self.note)

    @property
    def session_id(self) -> str:
        """Return the session the checkpoint heads (the origin after the key's name)."""
        return session_of(self.checkpoint.origin)


def open_checkpoint(
    text: str, trusted: Iterable[VerifierKey], check: SignatureCheck
) -> SignedCheckpoint:
    """Parse a signed checkpoint and check it is signed by a trusted key for its origin.

    The origin must start with the name of a key that signed it, then a slash: a key
    vouches only for the sessions of its own server.
    """
    note = SignedNote.parse(text)
    signers = verify_note(note, trusted, check)
    checkpoint = Checkpoint.parse(note.text)
    session = session_of(checkpoint.origin)
    for key in signers:
        if session and checkpoint.origin == origin_for(key.name, session):
            return SignedCheckpoint(checkpoint, note, key.name)
    raise SignatureError(
        f"checkpoint origin {checkpoint.origin!r} is not a session of any key that signed it"
    )


def read_kept(text: str) -> str:
    """Return a kept checkpoint's note as signed: a file may end in extra blank lines.

    Saving a note with ``jq -r .checkpoint > f`` or an editor adds a final newline; the
    note itself always ends in exactly one.
    """
    return text.rstrip("\r\n") + "\n"


def check_extends(kept: Checkpoint, later: Checkpoint, proof: ConsistencyProof) -> None:
    """Check that ``later`` heads a log whose first ``kept.size`` events are ``kept``'s.

    What a client does with each new checkpoint: a later log that dropped, changed or
    reordered anything the kept checkpoint covered fails here.
    """
    if kept.origin != later.origin:
        raise ProofError(f"the checkpoints head different logs: {kept.origin}, {later.origin}")
    if later.size < kept.size:
        raise ProofError(
            f"the log shrank from {kept.size} to {later.size} events since the kept checkpoint"
        )
    if (proof.old_size, proof.new_size) != (kept.size, later.size):
        raise ProofError(
            f"the proof is for sizes {proof.old_size} to {proof.new_size}, "
            f"not {kept.size} to {later.size}"
        )
    verify_consistency(proof, kept.root, later.root)


def check_log(kept: Checkpoint, leaves: Sequence[bytes]) -> None:
    """Check that a full log (its events' hashes, in order) still holds what ``kept`` covers.

    For an export checked offline: it must have at least ``kept.size`` events, and the tree
    of its first ``kept.size`` events must have the kept root.
    """
    if len(leaves) < kept.size:
        raise ProofError(
            f"the log has {len(leaves)} events; the kept checkpoint covers {kept.size}: "
            "events were removed"
        )
    if MerkleTree(leaves[: kept.size]).root() != kept.root:
        raise ProofError(
            f"the first {kept.size} events of the log are not the ones the kept checkpoint "
            "covers: the log was rewritten"
        )

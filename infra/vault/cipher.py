"""Seeds sealed at rest: AES-256-GCM under a key kept outside the database.

The key file (``DICELEDGER_SEED_KEY``, else ``seed.key`` in the user data directory,
mode 0600) holds one line, ``SEED+KEY+<base64 of 32 random bytes>``. A sealed seed is

    0x01 || 12-byte random nonce || AES-256-GCM(seed) with its 16-byte tag

with associated data binding it to its row: "diceledger/seed/v1", then the session id
and the commitment, each as a 4-byte big-endian length and its UTF-8 bytes. A sealed
seed copied to another session's or commitment's row does not open.
"""

from __future__ import annotations

import secrets
import struct
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from diceledger.domain.errors import CorruptLogError, KeyFileError, MalformedError
from diceledger.domain.signed_note import decode_base64, encode_base64
from diceledger.infra.vault.keyfiles import key_path, load_or_create

ENV_VAR = "DICELEDGER_SEED_KEY"
KEY_FILE = "seed.key"
KEY_PREFIX = "SEED+KEY+"
KEY_SIZE = 32
NONCE_SIZE = 12
VERSION = b"\x01"
CONTEXT = b"diceledger/seed/v1"


@dataclass(frozen=True)
class SeedCipher:
    """Seal and open seeds under one AES-256-GCM key."""

    key: bytes

    def __post_init__(self) -> None:
        if len(self.key) != KEY_SIZE:
            raise KeyFileError(f"a seed key has {KEY_SIZE} bytes")

    @classmethod
    def generate(cls) -> SeedCipher:
        """Return a cipher with a fresh random key."""
        return cls(secrets.token_bytes(KEY_SIZE))

    def to_text(self) -> str:
        """Return the key file's line (a secret)."""
        return f"{KEY_PREFIX}{encode_base64(self.key)}\n"

    @classmethod
    def from_text(cls, text: str) -> SeedCipher:
        """Read a key file's line."""
        line = text.removesuffix("\n")
        if not line.startswith(KEY_PREFIX):
            raise KeyFileError("not a seed key: expected SEED+KEY+<base64>")
        try:
            return cls(decode_base64(line[len(KEY_PREFIX) :], "seed key"))
        except MalformedError as error:
            raise KeyFileError(str(error)) from None

    def seal(self, stream_id: str, commitment: str, seed: bytes) -> bytes:
        """Return the sealed form of a session's seed."""
        nonce = secrets.token_bytes(NONCE_SIZE)
        sealed = AESGCM(self.key).encrypt(nonce, seed, _bound_to(stream_id, commitment))
        return VERSION + nonce + sealed

    def open(self, stream_id: str, commitment: str, sealed: bytes) -> bytes:
        """Return the seed inside a sealed row; refuse one that does not open here."""
        if sealed[:1] != VERSION or len(sealed) <= 1 + NONCE_SIZE:
            raise CorruptLogError(f"the seed vault's row for {stream_id} is not a sealed seed")
        nonce, body = sealed[1 : 1 + NONCE_SIZE], sealed[1 + NONCE_SIZE :]
        try:
            return AESGCM(self.key).decrypt(nonce, body, _bound_to(stream_id, commitment))
        except InvalidTag:
            raise CorruptLogError(
                f"a seed of session {stream_id} does not open with this seed key "
                f"(was it sealed under another {ENV_VAR}, or moved to another row?)"
            ) from None

    def __repr__(self) -> str:
        return "SeedCipher(<secret>)"


def load_seed_cipher(path: str | Path | None = None) -> SeedCipher:
    """Return the cipher of the key file at ``path``, else DICELEDGER_SEED_KEY, else default.

    The key file is created on first use.
    """
    file = Path(path) if path else key_path(ENV_VAR, KEY_FILE)
    text = load_or_create(file, lambda: SeedCipher.generate().to_text())
    try:
        return SeedCipher.from_text(text)
    except KeyFileError as error:
        raise KeyFileError(f"key file {file}: {error}") from None


def _bound_to(stream_id: str, commitment: str) -> bytes:
    fields = [stream_id.encode("utf-8"), commitment.encode("utf-8")]
    return CONTEXT + b"".join(struct.pack(">I", len(field)) + field for field in fields)

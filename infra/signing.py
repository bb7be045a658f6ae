"""The server's Ed25519 signing key, the retired keys it keeps trusting, and note checks.

The key file (``DICELEDGER_SIGNING_KEY``, else ``signing.key`` in the user data directory)
holds one line in the signer-key form of Go's note package:

    PRIVATE+KEY+<key name>+<key id, 8 hex digits>+<base64(0x01 || 32-byte Ed25519 seed)>

The key name is ``<server name>/diceledger``; a session's checkpoint origin is the key
name, a slash and the session id. Rotating the key writes a new key file and appends the
old verifier key to ``<key file>.retired``, so checkpoints signed before stay verifiable.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from diceledger.domain.checkpoint import Checkpoint, SignedCheckpoint, open_checkpoint
from diceledger.domain.errors import KeyFileError, MalformedError
from diceledger.domain.signed_note import (
    ED25519,
    VerifierKey,
    check_key_name,
    decode_base64,
    encode_base64,
    sign_note,
)
from diceledger.infra.keyfiles import key_path, load_or_create, write_key_file

ENV_VAR = "DICELEDGER_SIGNING_KEY"
KEY_FILE = "signing.key"
RETIRED_SUFFIX = ".retired"
DEFAULT_SERVER_NAME = "localhost"
KEY_PREFIX = "PRIVATE+KEY+"
LOG_NAME = "diceledger"


def key_name_for(server_name: str) -> str:
    """Return the key name a server signs under: ``<server name>/diceledger``."""
    return check_key_name(f"{server_name}/{LOG_NAME}")


def ed25519_check(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Tell whether ``signature`` is the Ed25519 signature of ``message`` by ``public_key``."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class SigningKey:
    """A named Ed25519 private key that signs checkpoints."""

    name: str
    private_key: Ed25519PrivateKey

    @classmethod
    def generate(cls, server_name: str = DEFAULT_SERVER_NAME) -> SigningKey:
        """Return a fresh key for ``server_name``."""
        return cls(key_name_for(server_name), Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, name: str, seed: bytes) -> SigningKey:
        """Return the key whose 32-byte Ed25519 seed is ``seed``."""
        return cls(check_key_name(name), Ed25519PrivateKey.from_private_bytes(seed))

    @cached_property
    def public_key(self) -> bytes:
        """Return the 32-byte public key (derived once: every signed append names it)."""
        # The *_raw methods spare every command the import of cryptography's serialization
        # package (SSH, PKCS#12 and more), which nothing else here needs.
        return self.private_key.public_key().public_bytes_raw()

    @property
    def verifier(self) -> VerifierKey:
        """Return the public half, as clients trust it."""
        return VerifierKey(self.name, self.public_key)

    @property
    def key_id(self) -> bytes:
        """Return the 4-byte key id."""
        return self.verifier.key_id

    def sign_checkpoint(self, checkpoint: Checkpoint) -> SignedCheckpoint:
        """Sign a checkpoint into a signed note."""
        note = sign_note(checkpoint.text(), self.name, self.public_key, self.private_key.sign)
        return SignedCheckpoint(checkpoint, note, self.name)

    def to_text(self) -> str:
        """Return the key file's line (a secret)."""
        seed = self.private_key.private_bytes_raw()
        encoded = encode_base64(bytes([ED25519]) + seed)
        return f"{KEY_PREFIX}{self.name}+{self.key_id.hex()}+{encoded}\n"

    @classmethod
    def from_text(cls, text: str) -> SigningKey:
        """Read a key file's line; refuse a malformed one or one whose id does not match."""
        line = text.removesuffix("\n")
        fields = line.removeprefix(KEY_PREFIX).split("+", 2)  # base64 may hold a plus
        if not line.startswith(KEY_PREFIX) or len(fields) != 3:
            raise MalformedError("not a signing key: expected PRIVATE+KEY+name+id+key")
        name, hex_id, encoded = fields
        material = decode_base64(encoded, "signing key")
        if len(material) != 33 or material[0] != ED25519:
            raise MalformedError("a signing key holds 0x01 and a 32-byte Ed25519 seed")
        key = cls.from_seed(name, material[1:])
        if key.key_id.hex() != hex_id:
            raise MalformedError(f"signing key {name} names id {hex_id}, its key has another")
        return key

    def __repr__(self) -> str:
        return f"SigningKey({self.name!r}, key id {self.key_id.hex()})"  # never the secret


class Keyring:
    """The signing key in its file, and the retired public keys kept beside it."""

    def __init__(self, path: Path, server_name: str = DEFAULT_SERVER_NAME) -> None:
        self.path = path
        self.retired_path = path.with_name(path.name + RETIRED_SUFFIX)
        self._server_name = server_name
        self._current: SigningKey | None = None

    def current(self) -> SigningKey:
        """Return the signing key, creating it on first use.

        An existing key keeps the name it was made with: the name is part of its identity.
        """
        if self._current is None:
            text = load_or_create(
                self.path, lambda: SigningKey.generate(self._server_name).to_text()
            )
            self._current = _read_key(self.path, text)
        return self._current

    def retired(self) -> tuple[VerifierKey, ...]:
        """Return the public keys of earlier signing keys, oldest first."""
        if not self.retired_path.exists():
            return ()
        try:
            lines = self.retired_path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise KeyFileError(f"cannot read {self.retired_path}: {error.strerror}") from None
        try:
            return tuple(VerifierKey.parse(line) for line in lines if line.strip())
        except MalformedError as error:
            raise KeyFileError(f"{self.retired_path}: {error}") from None

    def trusted(self) -> tuple[VerifierKey, ...]:
        """Return every key whose checkpoints this server vouches for: current and retired."""
        return (self.current().verifier, *self.retired())

    def known(self) -> tuple[VerifierKey, ...]:
        """Return the trusted keys as they are now, never creating a key (a reader's view)."""
        return self.trusted() if self.path.exists() else self.retired()

    def signer_of(self, signed: SignedCheckpoint) -> VerifierKey:
        """Return the key of this keyring whose signature the checkpoint carries."""
        ids = {sig.key_id for sig in signed.note.signatures if sig.name == signed.signer}
        for key in self.trusted():
            if key.name == signed.signer and key.key_id in ids:
                return key
        raise KeyFileError(f"no key of {self.path} signed this checkpoint")

    def rotate(self, server_name: str | None = None) -> SigningKey:
        """Retire the current key (its public key stays trusted) and start a new one."""
        old = self.current()
        retired = [str(key) for key in self.retired()] + [str(old.verifier)]
        write_key_file(self.retired_path, "".join(f"{line}\n" for line in retired), replace=True)
        new = SigningKey.generate(server_name or old.name.removesuffix(f"/{LOG_NAME}"))
        write_key_file(self.path, new.to_text(), replace=True)
        self._current = new
        return new


def open_keyring(path: str | Path | None = None, server_name: str = DEFAULT_SERVER_NAME) -> Keyring:
    """Return the keyring at ``path``, else at DICELEDGER_SIGNING_KEY, else the default file."""
    return Keyring(Path(path) if path else key_path(ENV_VAR, KEY_FILE), server_name)


def open_signed_checkpoint(text: str, trusted: tuple[VerifierKey, ...]) -> SignedCheckpoint:
    """Parse a signed checkpoint and check its signature against ``trusted`` keys."""
    return open_checkpoint(text, trusted, ed25519_check)


def _read_key(path: Path, text: str) -> SigningKey:
    try:
        return SigningKey.from_text(text)
    except MalformedError as error:
        raise KeyFileError(f"key file {path}: {error}") from None

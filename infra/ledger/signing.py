"""The server's Ed25519 signing key, the retired keys it keeps trusting, and note checks.

The key file (``DICELEDGER_SIGNING_KEY``, else ``signing.key`` in the user data directory)
holds one line in the signer-key form of Go's note package:

    PRIVATE+KEY+<key name>+<key id, 8 hex digits>+<base64(0x01 || 32-byte Ed25519 seed)>

The key name is ``<origin>/diceledger``: the server's public origin (``--origin``,
``DICELEDGER_ORIGIN``) without its scheme, else a random install id, so that no two
installs share a name. A session's checkpoint origin is the key name, a slash and the
session id.

Rotating the key writes a new key file, appends the old verifier key to
``<key file>.retired`` and one JSON line to ``<key file>.rotations``: the old key, the
new one, a signed note in which the old key vouches for the new (so a browser that
trusted the old key can accept the new), and each session's signed size at that moment,
the last size the retired key may vouch for (``domain.trust.Retired``).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from diceledger.domain.checkpoint import Checkpoint, SignedCheckpoint, open_checkpoint
from diceledger.domain.errors import KeyFileError, MalformedError, VerificationError
from diceledger.domain.signed_note import (
    ED25519,
    SignedNote,
    VerifierKey,
    check_key_name,
    decode_base64,
    encode_base64,
    sign_note,
    verify_note,
)
from diceledger.domain.trust import Retired
from diceledger.infra.vault.keyfiles import key_path, load_or_create, write_key_file

ENV_VAR = "DICELEDGER_SIGNING_KEY"
KEY_FILE = "signing.key"
ORIGIN_VAR = "DICELEDGER_ORIGIN"
RETIRED_SUFFIX = ".retired"
ROTATIONS_SUFFIX = ".rotations"
KEY_PREFIX = "PRIVATE+KEY+"
LOG_NAME = "diceledger"
ROTATION_FORMAT = "diceledger/key-rotation/v1"


def key_name_for(origin: str | None = None) -> str:
    """Return the key name a server signs under: ``<origin>/diceledger``.

    ``https://dice.example.org`` names ``dice.example.org/diceledger``; without an origin,
    a random install id does, never a name another install could share by default.
    """
    if not origin:
        return check_key_name(f"install-{secrets.token_hex(8)}/{LOG_NAME}")
    parts = urlsplit(origin if "//" in origin else f"//{origin}")
    return check_key_name(f"{(parts.netloc + parts.path).rstrip('/')}/{LOG_NAME}")


def rotation_text(old: VerifierKey, new: VerifierKey) -> str:
    """Return the note text in which a retiring key vouches for its successor."""
    return f"{ROTATION_FORMAT}\n{old}\n{new}\n"


def check_rotation(note: str, old: VerifierKey, new: VerifierKey) -> None:
    """Check that ``note`` is ``old``'s signature vouching for ``new``."""
    signed = SignedNote.parse(note)
    if signed.text != rotation_text(old, new):
        raise MalformedError("the rotation note does not name this pair of keys")
    verify_note(signed, (old,), ed25519_check)


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
    def generate(cls, name: str) -> SigningKey:
        """Return a fresh key named ``name`` (``key_name_for``)."""
        return cls(check_key_name(name), Ed25519PrivateKey.generate())

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

    def sign_text(self, text: str) -> str:
        """Return ``text`` as a note signed by this key."""
        return str(sign_note(text, self.name, self.public_key, self.private_key.sign))

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


@dataclass(frozen=True, slots=True)
class Rotation:
    """One key rotation: the key retired, its successor, the old key's word for the new."""

    retired: Retired
    successor: VerifierKey
    endorsement: str  # a signed note: rotation_text(retired key, successor), by the retired key

    def to_json(self) -> str:
        """Return the rotation as one JSON line of the rotations file."""
        return json.dumps(
            {
                "retired": str(self.retired.key),
                "successor": str(self.successor),
                "endorsement": self.endorsement,
                "sizes": dict(self.retired.sizes),
            },
            sort_keys=True,
        )

    @classmethod
    def parse(cls, line: str) -> Rotation:
        """Read one line of the rotations file; refuse one whose endorsement fails."""
        try:
            document = json.loads(line)
            old = VerifierKey.parse(document["retired"])
            new = VerifierKey.parse(document["successor"])
            sizes = {str(k): int(v) for k, v in dict(document["sizes"]).items()}
            endorsement = str(document["endorsement"])
        except (ValueError, KeyError, TypeError) as error:
            raise MalformedError(f"not a key rotation: {error}") from None
        check_rotation(endorsement, old, new)
        return cls(Retired(old, sizes), new, endorsement)


class Keyring:
    """The signing key in its file, and the retired public keys kept beside it."""

    def __init__(self, path: Path, origin: str | None = None) -> None:
        self.path = path
        self.retired_path = path.with_name(path.name + RETIRED_SUFFIX)
        self.rotations_path = path.with_name(path.name + ROTATIONS_SUFFIX)
        self._origin = origin
        self._current: SigningKey | None = None

    def current(self) -> SigningKey:
        """Return the signing key, creating it on first use.

        An existing key keeps the name it was made with: the name is part of its identity.
        """
        if self._current is None:
            text = load_or_create(
                self.path, lambda: SigningKey.generate(key_name_for(self._origin)).to_text()
            )
            self._current = _read_key(self.path, text)
        return self._current

    def retired(self) -> tuple[VerifierKey, ...]:
        """Return the public keys of earlier signing keys, oldest first."""
        try:
            return tuple(VerifierKey.parse(line) for line in self._lines(self.retired_path))
        except MalformedError as error:
            raise KeyFileError(f"{self.retired_path}: {error}") from None

    def rotations(self) -> tuple[Rotation, ...]:
        """Return every rotation, oldest first."""
        try:
            return tuple(Rotation.parse(line) for line in self._lines(self.rotations_path))
        except VerificationError as error:
            raise KeyFileError(f"{self.rotations_path}: {error}") from None

    def retirements(self) -> tuple[Retired, ...]:
        """Return each retired key with the signed sizes it may still vouch for.

        A key retired with no rotation on record vouches for nothing past size 0.
        """
        recorded = {rotation.retired.key: rotation.retired for rotation in self.rotations()}
        return tuple(recorded.get(key, Retired(key)) for key in self.retired())

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

    def rotate(self, sizes: Mapping[str, int]) -> Rotation:
        """Retire the current key at each session's signed size in ``sizes``; start a new one.

        The new key keeps the old one's name unless this keyring was given an origin.
        The rotation is recorded before the new key replaces the old: a crash between
        leaves the old key signing, with a rotation that names a successor never used.
        """
        old = self.current()
        name = key_name_for(self._origin) if self._origin else old.name
        new = SigningKey.generate(name)
        endorsement = old.sign_text(rotation_text(old.verifier, new.verifier))
        rotation = Rotation(Retired(old.verifier, dict(sizes)), new.verifier, endorsement)
        rotations = [line for line in self._lines(self.rotations_path)] + [rotation.to_json()]
        write_key_file(self.rotations_path, "".join(f"{line}\n" for line in rotations), True)
        retired = [str(key) for key in self.retired()] + [str(old.verifier)]
        write_key_file(self.retired_path, "".join(f"{line}\n" for line in retired), replace=True)
        write_key_file(self.path, new.to_text(), replace=True)
        self._current = new
        return rotation

    @staticmethod
    def _lines(path: Path) -> list[str]:
        if not path.exists():
            return []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise KeyFileError(f"cannot read {path}: {error.strerror}") from None
        return [line for line in lines if line.strip()]


def open_keyring(path: str | Path | None = None, origin: str | None = None) -> Keyring:
    """Return the keyring at ``path``, else at DICELEDGER_SIGNING_KEY, else the default file.

    ``origin`` (else DICELEDGER_ORIGIN) names a key this keyring creates.
    """
    where = Path(path) if path else key_path(ENV_VAR, KEY_FILE)
    return Keyring(where, origin or os.environ.get(ORIGIN_VAR) or None)


def open_signed_checkpoint(text: str, trusted: tuple[VerifierKey, ...]) -> SignedCheckpoint:
    """Parse a signed checkpoint and check its signature against ``trusted`` keys."""
    return open_checkpoint(text, trusted, ed25519_check)


def _read_key(path: Path, text: str) -> SigningKey:
    try:
        return SigningKey.from_text(text)
    except MalformedError as error:
        raise KeyFileError(f"key file {path}: {error}") from None

"""C2SP signed notes: text, a blank line, and one signature line per key.

    <text ending in a newline>
    <blank line>
    — <key name> <base64(4-byte key id || signature)>

Only Ed25519 keys (signature type 0x01) are known here. A key id is the first four bytes
of SHA-256(key name || 0x0A || 0x01 || 32-byte public key); a verifier key is written
``<name>+<key id in 8 hex digits>+<base64(0x01 || public key)>``. Parsing is strict (every
byte is accounted for and serialising gives the same text back); signatures are checked
by a function passed in, since the domain holds no cryptography of its own.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from diceledger.domain.errors import MalformedError, SignatureError

ED25519 = 0x01
ED25519_KEY_SIZE = 32
ED25519_SIGNATURE_SIZE = 64
KEY_ID_SIZE = 4
SIGNATURE_PREFIX = "\u2014 "  # em dash, space
MAX_SIGNATURES = 64  # the spec asks verifiers to accept at least 16

# (public key, message, signature) -> whether the signature is valid.
SignatureCheck = Callable[[bytes, bytes, bytes], bool]


def check_key_name(name: str) -> str:
    """Return ``name`` if it can name a key: non-empty, no spaces, no plus, no controls."""
    if not name:
        raise MalformedError("a key name must not be empty")
    if any(char.isspace() or char == "+" or not char.isprintable() for char in name):
        raise MalformedError(f"key name {name!r} holds a space, a plus or an unprintable character")
    return name


def key_id(name: str, public_key: bytes) -> bytes:
    """Return the 4-byte id of an Ed25519 key with this name."""
    material = name.encode("utf-8") + b"\n" + bytes([ED25519]) + public_key
    return hashlib.sha256(material).digest()[:KEY_ID_SIZE]


@dataclass(frozen=True, slots=True)
class VerifierKey:
    """A named Ed25519 public key that notes are checked against."""

    name: str
    public_key: bytes

    def __post_init__(self) -> None:
        check_key_name(self.name)
        if len(self.public_key) != ED25519_KEY_SIZE:
            raise MalformedError(f"an Ed25519 public key has {ED25519_KEY_SIZE} bytes")

    @property
    def key_id(self) -> bytes:
        """Return the key's 4-byte id."""
        return key_id(self.name, self.public_key)

    def __str__(self) -> str:
        encoded = encode_base64(bytes([ED25519]) + self.public_key)
        return f"{self.name}+{self.key_id.hex()}+{encoded}"

    @classmethod
    def parse(cls, text: str) -> VerifierKey:
        """Read a verifier key from its ``name+keyid+base64`` form; refuse a wrong id."""
        name, plus, rest = text.partition("+")
        hex_id, plus2, encoded = rest.partition("+")
        if not plus or not plus2 or len(hex_id) != 2 * KEY_ID_SIZE:
            raise MalformedError(f"not a verifier key: {text!r}")
        material = decode_base64(encoded, "verifier key")
        if len(material) != 1 + ED25519_KEY_SIZE or material[0] != ED25519:
            raise MalformedError("a verifier key must hold 0x01 and a 32-byte Ed25519 key")
        key = cls(check_key_name(name), material[1:])
        if hex_id != key.key_id.hex():
            raise MalformedError(f"verifier key {name} names id {hex_id}, its key has another")
        return key


@dataclass(frozen=True, slots=True)
class NoteSignature:
    """One signature line: who signed (name and key id) and the signature bytes."""

    name: str
    key_id: bytes
    signature: bytes

    def line(self) -> str:
        """Return the signature line, newline included."""
        return f"{SIGNATURE_PREFIX}{self.name} {encode_base64(self.key_id + self.signature)}\n"

    @classmethod
    def parse(cls, line: str) -> NoteSignature:
        """Read one signature line (without its newline)."""
        if not line.startswith(SIGNATURE_PREFIX):
            raise MalformedError(f"a signature line must start with an em dash: {line!r}")
        name, space, encoded = line[len(SIGNATURE_PREFIX) :].partition(" ")
        if not space:
            raise MalformedError(f"a signature line needs a key name and a signature: {line!r}")
        raw = decode_base64(encoded, "signature")
        if len(raw) <= KEY_ID_SIZE:
            raise MalformedError("a signature must hold a 4-byte key id and the signature")
        return cls(check_key_name(name), raw[:KEY_ID_SIZE], raw[KEY_ID_SIZE:])


@dataclass(frozen=True, slots=True)
class SignedNote:
    """A note's text (ending in a newline) and its signatures."""

    text: str
    signatures: tuple[NoteSignature, ...]

    def __str__(self) -> str:
        return self.text + "\n" + "".join(sig.line() for sig in self.signatures)

    @classmethod
    def parse(cls, note: str) -> SignedNote:
        """Read a signed note strictly; refuse anything the format does not allow."""
        _check_characters(note)
        if not note.endswith("\n"):
            raise MalformedError("a signed note must end with a newline")
        split = note.rfind("\n\n")
        if split < 0:
            raise MalformedError("a signed note needs a blank line before its signatures")
        text, lines = note[: split + 1], note[split + 2 : -1].split("\n")
        if not lines or lines == [""]:
            raise MalformedError("a signed note needs at least one signature")
        if len(lines) > MAX_SIGNATURES:
            raise MalformedError(f"a signed note may carry at most {MAX_SIGNATURES} signatures")
        return cls(text, tuple(NoteSignature.parse(line) for line in lines))


def sign_note(
    text: str, name: str, public_key: bytes, sign: Callable[[bytes], bytes]
) -> SignedNote:
    """Return ``text`` signed by the Ed25519 key ``sign`` holds under ``name``."""
    _check_characters(text)
    if not text.endswith("\n"):
        raise MalformedError("a note's text must end with a newline")
    signature = sign(text.encode("utf-8"))
    if len(signature) != ED25519_SIGNATURE_SIZE:
        raise MalformedError("an Ed25519 signature has 64 bytes")
    return SignedNote(text, (NoteSignature(name, key_id(name, public_key), signature),))


def verify_note(
    note: SignedNote, trusted: Iterable[VerifierKey], check: SignatureCheck
) -> tuple[VerifierKey, ...]:
    """Return the trusted keys whose signatures on ``note`` verify; refuse if none does.

    Signatures by unknown keys (name and id not both known) are ignored, as the spec asks;
    a known key's signature that fails rejects the whole note.
    """
    known = {(key.name, key.key_id): key for key in trusted}
    message = note.text.encode("utf-8")
    verified: list[VerifierKey] = []
    for signature in note.signatures:
        key = known.get((signature.name, signature.key_id))
        if key is None:
            continue
        if not check(key.public_key, message, signature.signature):
            raise SignatureError(f"the signature of {key.name} ({key.key_id.hex()}) is forged")
        verified.append(key)
    if not verified:
        names = ", ".join(f"{sig.name} ({sig.key_id.hex()})" for sig in note.signatures)
        raise SignatureError(f"no trusted key signed this note; it is signed by {names}")
    return tuple(verified)


def _check_characters(text: str) -> None:
    if any(char < " " and char != "\n" for char in text):
        raise MalformedError("a signed note must not hold control characters other than newline")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise MalformedError("a signed note must be valid UTF-8") from None


def encode_base64(raw: bytes) -> str:
    """Encode bytes as standard, padded base64 text."""
    return base64.b64encode(raw).decode("ascii")


def decode_base64(encoded: str, what: str) -> bytes:
    """Decode standard base64 strictly: only its canonical spelling is accepted."""
    try:
        raw = base64.b64decode(encoded.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise MalformedError(f"the {what} is not base64") from None
    if encode_base64(raw) != encoded:
        raise MalformedError(f"the {what} is not canonical base64")
    return raw

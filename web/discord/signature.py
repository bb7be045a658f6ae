"""Check that a request comes from Discord: an Ed25519 signature over timestamp and raw body.

Discord signs ``X-Signature-Timestamp`` followed by the body's exact bytes with the
application's key, and sends the signature in hex as ``X-Signature-Ed25519``. The check
runs on the raw bytes before anything is parsed. A signature that verifies is still
refused when its timestamp is stale or ahead of the server's clock: a request recorded
on the way cannot be played again later.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from diceledger.domain.errors import InvalidInputError, UnauthenticatedError

SIGNATURE_HEADER = "X-Signature-Ed25519"
TIMESTAMP_HEADER = "X-Signature-Timestamp"
MAX_AGE_SECONDS = 300  # how old a signed request may be
MAX_AHEAD_SECONDS = 30  # how far ahead of our clock Discord's may run
KEY_BYTES = 32
SIGNATURE_BYTES = 64
TIMESTAMP_DIGITS = 12  # Unix seconds, with room to spare


def public_key(hex_key: str) -> Ed25519PublicKey:
    """Return the application's public key from its hex form (the developer portal's)."""
    try:
        raw = bytes.fromhex(hex_key.strip())
    except ValueError:
        raw = b""
    if len(raw) != KEY_BYTES:
        raise InvalidInputError("a Discord public key is 64 hex digits (32 bytes)")
    return Ed25519PublicKey.from_public_bytes(raw)


class SignatureCheck:
    """Refuse requests not signed by the application's key, or signed too long ago."""

    def __init__(self, key: Ed25519PublicKey, clock: Callable[[], float] = time.time) -> None:
        self._key = key
        self._clock = clock

    def check(self, signature: str | None, timestamp: str | None, body: bytes) -> None:
        """Return if the request is Discord's and fresh; raise UnauthenticatedError if not."""
        if not signature or not timestamp:
            raise UnauthenticatedError("the request is not signed")
        try:
            raw = bytes.fromhex(signature)
        except ValueError:
            raw = b""
        digits = timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= TIMESTAMP_DIGITS
        if len(raw) != SIGNATURE_BYTES or not digits:
            raise UnauthenticatedError("the request's signature is malformed")
        try:
            self._key.verify(raw, timestamp.encode() + body)
        except InvalidSignature:
            raise UnauthenticatedError("invalid request signature") from None
        age = self._clock() - int(timestamp)
        if age > MAX_AGE_SECONDS:
            raise UnauthenticatedError("the signed request is too old")
        if age < -MAX_AHEAD_SECONDS:
            raise UnauthenticatedError("the signed request is from the future")

"""Bearer secrets: random, prefixed by kind, and known to the server only by their hash."""

from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "dlt_"  # a member's bearer token
INVITE_PREFIX = "dli_"  # a single-use invite code
SIGN_IN_PREFIX = "dls_"  # a single-use code that signs an existing member in
TOKEN_BYTES = 32  # 256 bits
INVITE_BYTES = 16  # 128 bits: a code lives minutes and its redemptions are rate-limited
MAX_SECRET_LENGTH = 100


def new_token() -> str:
    """Return a fresh member token."""
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def new_invite_code() -> str:
    """Return a fresh invite code."""
    return INVITE_PREFIX + secrets.token_urlsafe(INVITE_BYTES)


def new_sign_in_code() -> str:
    """Return a fresh sign-in code."""
    return SIGN_IN_PREFIX + secrets.token_urlsafe(INVITE_BYTES)


def secret_hash(secret: str) -> str:
    """Return the SHA-256 of a secret in hex: what the database keeps instead of it.

    The secrets carry 128 to 256 random bits, so a plain hash cannot be reversed by
    guessing, and a lookup by hash compares no secret byte by byte.
    """
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def looks_like(secret: str, prefix: str) -> bool:
    """Tell whether ``secret`` has the shape of a secret of this kind (before any lookup)."""
    return secret.startswith(prefix) and 0 < len(secret) <= MAX_SECRET_LENGTH and secret.isascii()

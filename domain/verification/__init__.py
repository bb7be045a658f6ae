"""Proof that a session's dice were fair and its log untouched (see docs/verification.md)."""

"""The seed vault: secret seeds kept beside, never inside, the event log.

A seed is found by its session and its commitment, sha256(seed) in hex, which is what the
log records (SeedCommitted) until the seed is revealed.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Engine

from diceledger.domain.dice.sources import commitment
from diceledger.domain.errors import InvalidInputError
from diceledger.infra.db import translate_errors, write_connection
from diceledger.infra.store.schema import seed_vault


def commitment_of(seed: bytes) -> str:
    """Return the public commitment to a seed: its SHA-256 in lowercase hex."""
    if not isinstance(seed, bytes) or not seed:
        raise InvalidInputError("a seed must be non-empty bytes")
    return commitment(seed)


class InMemorySeedVault:
    """Keep seeds in a dict; the same methods as SeedVault, for unit tests."""

    def __init__(self) -> None:
        self._seeds: dict[tuple[str, str], bytes] = {}

    def put(self, stream_id: str, seed: bytes) -> str:
        """Store a session's seed (storing it again is harmless); return its commitment."""
        commitment = commitment_of(seed)
        self._seeds.setdefault((stream_id, commitment), seed)
        return commitment

    def get(self, stream_id: str, commitment: str) -> bytes | None:
        """Return the seed behind a commitment, or None when the vault lacks it."""
        return self._seeds.get((stream_id, commitment))


class SeedVault:
    """Keep seeds in the ``seed_vault`` table of the store's database."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def put(self, stream_id: str, seed: bytes) -> str:
        """Store a session's seed (storing it again is harmless); return its commitment."""
        commitment = commitment_of(seed)
        if self.get(stream_id, commitment) is not None:
            return commitment
        row = {"stream_id": stream_id, "commitment": commitment, "seed": seed}
        try:
            with (
                translate_errors(self._engine.url),
                write_connection(self._engine) as connection,
                connection.begin(),
            ):
                connection.execute(seed_vault.insert(), row)
        except exc.IntegrityError:
            pass  # stored meanwhile by another process: the same seed, since the key is its hash
        return commitment

    def get(self, stream_id: str, commitment: str) -> bytes | None:
        """Return the seed behind a commitment, or None when the vault lacks it."""
        query = sa.select(seed_vault.c.seed).where(
            seed_vault.c.stream_id == stream_id, seed_vault.c.commitment == commitment
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            seed = connection.scalar(query)
        return None if seed is None else bytes(seed)

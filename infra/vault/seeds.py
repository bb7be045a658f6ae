"""The seed vault: secret seeds kept beside, never inside, the event log.

A seed is found by its session and its commitment, sha256(seed) in hex, which is what the
log records (SeedCommitted) until the seed is revealed. In the database a seed is stored
only sealed (``infra.vault.cipher``) under a key kept outside it, so a copy of the database
alone does not tell anyone the dice to come.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Engine

from diceledger.domain.dice.sources import commitment
from diceledger.domain.errors import CorruptLogError, InvalidInputError
from diceledger.infra.store.database import read_connection, translate_errors
from diceledger.infra.store.transaction import writing
from diceledger.infra.vault.cipher import SeedCipher, load_seed_cipher
from diceledger.infra.vault.schema import seed_vault


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
    """Keep seeds sealed in the ``seed_vault`` table of the store's database.

    Without a cipher, the seed key file (DICELEDGER_SEED_KEY, else the default) is read,
    or created, the first time a seed is stored or read.
    """

    def __init__(self, engine: Engine, cipher: SeedCipher | None = None) -> None:
        self._engine = engine
        self._cipher = cipher

    def put(self, stream_id: str, seed: bytes) -> str:
        """Store a session's seed (storing it again is harmless); return its commitment."""
        commitment = commitment_of(seed)
        if self.get(stream_id, commitment) is not None:
            return commitment
        sealed = self._sealer().seal(stream_id, commitment, seed)
        row = {"stream_id": stream_id, "commitment": commitment, "sealed_seed": sealed}
        try:
            # In the command's transaction if one is open: the seed is kept exactly when the
            # events committing to it are (a savepoint confines a collision).
            with writing(self._engine) as connection, connection.begin_nested():
                connection.execute(seed_vault.insert(), row)
        except exc.IntegrityError:
            pass  # stored meanwhile by another process: the same seed, since the key is its hash
        return commitment

    def get(self, stream_id: str, commitment: str) -> bytes | None:
        """Return the seed behind a commitment, or None when the vault lacks it."""
        query = sa.select(seed_vault.c.sealed_seed).where(
            seed_vault.c.stream_id == stream_id, seed_vault.c.commitment == commitment
        )
        with translate_errors(self._engine.url), read_connection(self._engine) as connection:
            sealed = connection.scalar(query)
        if sealed is None:
            return None
        seed = self._sealer().open(stream_id, commitment, bytes(sealed))
        if commitment_of(seed) != commitment:
            raise CorruptLogError(f"the seed vault's row for {stream_id} holds another seed")
        return seed

    def _sealer(self) -> SeedCipher:
        if self._cipher is None:
            self._cipher = load_seed_cipher()
        return self._cipher

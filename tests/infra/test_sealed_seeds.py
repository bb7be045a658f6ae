"""Seeds at rest: the vault table holds no seed, only what the seed key outside it opens."""

from __future__ import annotations

import secrets
import stat
from pathlib import Path

import pytest
import sqlalchemy as sa

from diceledger.domain.errors import CorruptLogError, KeyFileError
from diceledger.infra.store.database import downgrade, make_engine, upgrade
from diceledger.infra.vault.cipher import SeedCipher, load_seed_cipher
from diceledger.infra.vault.seeds import SeedVault, commitment_of


@pytest.fixture
def seed_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "keys" / "seed.key"
    monkeypatch.setenv("DICELEDGER_SEED_KEY", str(path))
    return path


def raw_rows(url: str) -> list[tuple[object, ...]]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(sa.text("SELECT * FROM seed_vault"))]
    finally:
        engine.dispose()


def holds(rows: list[tuple[object, ...]], secret: bytes) -> bool:
    """Tell whether any column of any row holds the secret, as bytes or as hex text."""
    for row in rows:
        for value in row:
            blob = bytes(value) if isinstance(value, bytes | memoryview) else str(value).encode()
            if secret in blob or secret.hex().encode() in blob:
                return True
    return False


def test_the_vault_table_holds_no_seed_only_a_sealed_one(sql_url: str, seed_key: Path) -> None:
    engine = make_engine(sql_url)
    seeds = [secrets.token_bytes(32) for _ in range(3)]
    try:
        vault = SeedVault(engine)
        commitments = [vault.put("crypt-1a2b3c", seed) for seed in seeds]
        assert [vault.get("crypt-1a2b3c", c) for c in commitments] == seeds
    finally:
        engine.dispose()
    rows = raw_rows(sql_url)
    assert len(rows) == 3
    assert not any(holds(rows, seed) for seed in seeds)
    assert stat.S_IMODE(seed_key.stat().st_mode) == 0o600


def test_a_copy_of_the_database_without_the_key_reveals_nothing(
    sqlite_url: str, seed_key: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(sqlite_url)
    seed = secrets.token_bytes(32)
    commitment = SeedVault(engine).put("s1", seed)
    monkeypatch.setenv("DICELEDGER_SEED_KEY", str(tmp_path / "a-thiefs-own.key"))
    with pytest.raises(CorruptLogError, match="does not open with this seed key"):
        SeedVault(engine).get("s1", commitment)
    engine.dispose()


def test_a_sealed_seed_moved_to_another_sessions_row_does_not_open(
    sqlite_url: str, seed_key: Path
) -> None:
    engine = make_engine(sqlite_url)
    vault = SeedVault(engine)
    seed = secrets.token_bytes(32)
    commitment = vault.put("victim-1", seed)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO seed_vault (stream_id, commitment, sealed_seed) "
                "SELECT 'thief-2', commitment, sealed_seed FROM seed_vault"
            )
        )
    with pytest.raises(CorruptLogError, match="thief-2"):
        vault.get("thief-2", commitment)
    assert vault.get("victim-1", commitment) == seed
    engine.dispose()


def test_storing_a_seed_again_keeps_the_first_row(sqlite_url: str, seed_key: Path) -> None:
    engine = make_engine(sqlite_url)
    vault = SeedVault(engine)
    seed = secrets.token_bytes(32)
    assert vault.put("s1", seed) == vault.put("s1", seed) == commitment_of(seed)
    assert len(raw_rows(sqlite_url)) == 1
    assert vault.get("s1", "0" * 64) is None
    engine.dispose()


def test_the_seed_key_is_created_once_and_read_back(seed_key: Path) -> None:
    first = load_seed_cipher()
    assert load_seed_cipher().key == first.key
    assert seed_key.read_text().startswith("SEED+KEY+")
    assert "SEED+KEY" not in repr(first) and first.key.hex() not in repr(first)


def test_a_seed_key_file_open_to_others_is_refused(seed_key: Path) -> None:
    load_seed_cipher()
    seed_key.chmod(0o640)
    with pytest.raises(KeyFileError, match="open to other users"):
        load_seed_cipher()


def test_upgrading_seals_plain_seeds_and_downgrading_opens_them(
    sql_url: str, seed_key: Path
) -> None:
    downgrade(sql_url, "0006_merkle_nodes")
    seed = secrets.token_bytes(32)
    commitment = commitment_of(seed)
    engine = make_engine(sql_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                sa.text("INSERT INTO seed_vault (stream_id, commitment, seed) VALUES (:s, :c, :v)"),
                {"s": "old-session", "c": commitment, "v": seed},
            )
        assert holds(raw_rows(sql_url), seed)
        upgrade(sql_url)
        assert not holds(raw_rows(sql_url), seed)
        assert SeedVault(engine).get("old-session", commitment) == seed
        downgrade(sql_url, "0006_merkle_nodes")
        assert raw_rows(sql_url) == [("old-session", commitment, seed)]
        upgrade(sql_url)
        assert SeedVault(engine).get("old-session", commitment) == seed
    finally:
        engine.dispose()


def test_upgrading_an_empty_vault_touches_no_key(sql_url: str, seed_key: Path) -> None:
    downgrade(sql_url, "0006_merkle_nodes")
    upgrade(sql_url)
    assert not seed_key.exists()


def test_a_sealed_seed_is_version_nonce_and_ciphertext_with_tag() -> None:
    cipher = SeedCipher.generate()
    sealed = cipher.seal("s1", "c" * 64, bytes(32))
    assert len(sealed) == 1 + 12 + 32 + 16 and sealed[0] == 1
    assert cipher.seal("s1", "c" * 64, bytes(32)) != sealed  # a fresh nonce each time
    assert cipher.open("s1", "c" * 64, sealed) == bytes(32)
    with pytest.raises(CorruptLogError):
        cipher.open("s1", "d" * 64, sealed)

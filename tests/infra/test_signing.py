"""The server's signing key: fixed vectors, a private key file, and rotation that keeps trust."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

import pytest

from diceledger.domain.checkpoint import Checkpoint, origin_for
from diceledger.domain.errors import KeyFileError, MalformedError, SignatureError
from diceledger.domain.merkle import MerkleTree
from diceledger.domain.signed_note import SignedNote, VerifierKey, verify_note
from diceledger.infra.ledger.signing import (
    KEY_PREFIX,
    Keyring,
    SigningKey,
    ed25519_check,
    key_name_for,
    open_keyring,
    open_signed_checkpoint,
)

VECTOR = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "signed_note_vector.json").read_text()
)


def checkpoint(name: str, size: int = 3) -> Checkpoint:
    leaves = [bytes([i]) * 32 for i in range(size)]
    return Checkpoint(origin_for(name, "crypt-1a2b3c"), size, MerkleTree(leaves).root())


# ---- fixed vectors -------------------------------------------------------------------------


def test_the_committed_vector_signs_to_the_same_note_line_and_key_id() -> None:
    key = SigningKey.from_text(VECTOR["signing_key"])
    assert key.to_text().strip() == VECTOR["signing_key"]
    assert str(key.verifier) == VECTOR["verifier_key"]
    assert key.key_id.hex() == VECTOR["key_id"]
    body = Checkpoint.parse(SignedNote.parse(VECTOR["note"]).text)
    signed = key.sign_checkpoint(body)
    assert str(signed) == VECTOR["note"]
    assert signed.note.signatures[0].line().strip() == VECTOR["signature_line"]


def test_the_committed_vector_verifies_with_its_public_key_alone() -> None:
    trusted = (VerifierKey.parse(VECTOR["verifier_key"]),)
    opened = open_signed_checkpoint(VECTOR["note"], trusted)
    assert opened.session_id == "crypt-1a2b3c"
    assert opened.checkpoint.size == 3


def test_the_published_c2sp_and_go_note_vectors_verify() -> None:
    published = VECTOR["published"]
    c2sp = VerifierKey.parse(published["c2sp_key"])
    assert verify_note(SignedNote.parse(published["c2sp_note"]), [c2sp], ed25519_check)
    go_keys = [VerifierKey.parse(text) for text in published["go_keys"]]
    note = SignedNote.parse(published["go_note"])
    assert str(note) == published["go_note"]
    assert verify_note(note, go_keys, ed25519_check) == tuple(go_keys)
    assert VerifierKey.parse(published["sumdb_key"]).key_id.hex() == "033de0ae"


def test_a_signature_by_another_key_with_the_same_name_is_refused() -> None:
    impostor = SigningKey.generate(key_name_for("dice.example"))
    note = str(impostor.sign_checkpoint(checkpoint(impostor.name)))
    with pytest.raises(SignatureError, match="no trusted key"):
        open_signed_checkpoint(note, (VerifierKey.parse(VECTOR["verifier_key"]),))


def test_a_forged_signature_under_the_trusted_key_id_is_refused() -> None:
    real = SigningKey.from_text(VECTOR["signing_key"])
    impostor = SigningKey.generate(key_name_for("dice.example"))
    signed = impostor.sign_checkpoint(checkpoint(real.name))
    forged = signed.note.signatures[0]
    note = SignedNote(signed.note.text, (type(forged)(real.name, real.key_id, forged.signature),))
    with pytest.raises(SignatureError, match="forged"):
        open_signed_checkpoint(str(note), (real.verifier,))


# ---- the key file --------------------------------------------------------------------------


def test_the_key_is_created_on_first_use_readable_by_its_owner_only(tmp_path: Path) -> None:
    keyring = Keyring(tmp_path / "keys" / "signing.key", "dice.example")
    key = keyring.current()
    mode = stat.S_IMODE((tmp_path / "keys" / "signing.key").stat().st_mode)
    assert mode == 0o600
    assert key.name == "dice.example/diceledger"
    assert Keyring(tmp_path / "keys" / "signing.key").current().key_id == key.key_id


def test_the_key_file_follows_diceledger_signing_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICELEDGER_SIGNING_KEY", str(tmp_path / "elsewhere.key"))
    open_keyring().current()
    assert (tmp_path / "elsewhere.key").is_file()


def test_the_default_key_file_is_in_the_user_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DICELEDGER_SIGNING_KEY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    open_keyring().current()
    assert (tmp_path / "diceledger" / "signing.key").is_file()


def test_a_key_file_open_to_other_users_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "signing.key"
    Keyring(path).current()
    path.chmod(0o644)
    with pytest.raises(KeyFileError, match="open to other users.*chmod 600"):
        Keyring(path).current()


def test_a_malformed_key_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "signing.key"
    path.write_text("not a key\n")
    path.chmod(0o600)
    with pytest.raises(KeyFileError, match="signing.key: not a signing key"):
        Keyring(path).current()


def test_processes_starting_at_once_all_get_the_same_key(tmp_path: Path) -> None:
    path = tmp_path / "signing.key"
    ids: list[bytes] = []
    barrier = threading.Barrier(8)

    def start() -> None:
        barrier.wait()
        ids.append(Keyring(path).current().key_id)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ids) == 8 and len(set(ids)) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["signing.key"]  # no partial files left


def test_the_secret_never_shows_in_a_repr(tmp_path: Path) -> None:
    key = Keyring(tmp_path / "signing.key").current()
    # The secret is the third field after the prefix; base64 may itself hold a plus.
    secret = key.to_text().strip().removeprefix(KEY_PREFIX).split("+", 2)[2]
    assert len(secret) > 40
    assert secret not in repr(key)


def test_a_server_name_with_a_space_or_plus_is_refused() -> None:
    with pytest.raises(MalformedError, match="key name"):
        key_name_for("dice example")


# ---- rotation ------------------------------------------------------------------------------


def test_rotation_keeps_old_checkpoints_verifiable(tmp_path: Path) -> None:
    keyring = Keyring(tmp_path / "signing.key", "dice.example")
    first = keyring.current()
    old_note = str(first.sign_checkpoint(checkpoint(first.name, 3)))
    keyring.rotate({})
    second = keyring.current()
    assert second.key_id != first.key_id and second.name == first.name
    new_note = str(second.sign_checkpoint(checkpoint(second.name, 5)))
    reopened = Keyring(tmp_path / "signing.key")
    trusted = reopened.trusted()
    assert reopened.current().key_id == second.key_id
    assert [key.key_id for key in reopened.retired()] == [first.key_id]
    assert open_signed_checkpoint(old_note, trusted).checkpoint.size == 3
    assert open_signed_checkpoint(new_note, trusted).checkpoint.size == 5
    keyring.rotate({})
    assert len(Keyring(tmp_path / "signing.key").trusted()) == 3


def test_a_retired_key_is_not_trusted_by_someone_who_never_kept_it(tmp_path: Path) -> None:
    keyring = Keyring(tmp_path / "signing.key")
    old_note = str(keyring.current().sign_checkpoint(checkpoint(keyring.current().name)))
    keyring.rotate({})
    with pytest.raises(SignatureError):
        open_signed_checkpoint(old_note, (keyring.current().verifier,))


def test_each_install_names_its_key_apart_unless_given_its_public_origin(tmp_path: Path) -> None:
    first = Keyring(tmp_path / "one.key").current().name
    second = Keyring(tmp_path / "two.key").current().name
    assert first != second
    assert not first.startswith("localhost/") and not second.startswith("localhost/")
    assert key_name_for("https://dice.example.org/") == "dice.example.org/diceledger"
    assert Keyring(tmp_path / "three.key", "https://dice.example.org").current().name == (
        "dice.example.org/diceledger"
    )

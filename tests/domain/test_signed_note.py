"""Signed notes and checkpoints: strict parsing, exact serialisation, and signature rules.

Signatures here come from a stand-in scheme (a hash of key and message), since the domain
checks signatures only through the function it is given; tests/infra/test_signing.py
checks real Ed25519 vectors.
"""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diceledger.domain.checkpoint import (
    Checkpoint,
    SignedCheckpoint,
    check_extends,
    check_log,
    open_checkpoint,
    origin_for,
)
from diceledger.domain.errors import MalformedError, ProofError, SignatureError
from diceledger.domain.merkle import ConsistencyProof, MerkleTree
from diceledger.domain.signed_note import (
    NoteSignature,
    SignedNote,
    VerifierKey,
    key_id,
    sign_note,
    verify_note,
)

SERVER = "dice.example/diceledger"


def stand_in_signature(public_key: bytes, message: bytes) -> bytes:
    return hashlib.sha512(public_key + message).digest()


def stand_in_check(public_key: bytes, message: bytes, signature: bytes) -> bool:
    return signature == stand_in_signature(public_key, message)


def key(name: str = SERVER, seed: bytes = b"server") -> VerifierKey:
    return VerifierKey(name, hashlib.sha256(seed).digest())


def signed_by(verifier: VerifierKey, text: str) -> SignedNote:
    return sign_note(
        text,
        verifier.name,
        verifier.public_key,
        lambda message: stand_in_signature(verifier.public_key, message),
    )


def leaves(n: int) -> list[bytes]:
    return [hashlib.sha256(b"\x00" + f"event {i}".encode()).digest() for i in range(n)]


def checkpoint_of(size: int, session: str = "crypt-1a2b3c") -> Checkpoint:
    return Checkpoint(origin_for(SERVER, session), size, MerkleTree(leaves(size)).root())


# ---- key ids and verifier keys -------------------------------------------------------------


def test_a_key_id_is_the_start_of_sha256_of_name_newline_type_and_key() -> None:
    verifier = key()
    expected = hashlib.sha256(SERVER.encode() + b"\n\x01" + verifier.public_key).digest()[:4]
    assert key_id(SERVER, verifier.public_key) == verifier.key_id == expected


def test_a_verifier_key_reads_back_from_its_text_form() -> None:
    verifier = key()
    text = str(verifier)
    name, hex_id, encoded = text.split("+")
    assert (name, hex_id) == (SERVER, verifier.key_id.hex())
    assert base64.b64decode(encoded) == b"\x01" + verifier.public_key
    assert VerifierKey.parse(text) == verifier


@pytest.mark.parametrize(
    "text",
    [
        "no-plus-signs",
        "name+0011+AQ==",
        "name+00112233+not base64",
        f"{SERVER}+00000000+{str(key()).split('+')[2]}",  # an id that is not the key's
        "bad name+00112233+AQ==",
    ],
)
def test_a_malformed_verifier_key_is_refused(text: str) -> None:
    with pytest.raises(MalformedError):
        VerifierKey.parse(text)


@pytest.mark.parametrize("name", ["", "has space", "has+plus", "tab\there", "nbsp\u00a0x"])
def test_a_key_name_with_spaces_plus_or_controls_is_refused(name: str) -> None:
    with pytest.raises(MalformedError):
        key(name)


# ---- notes ---------------------------------------------------------------------------------

line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=0, max_size=30
)
note_texts = st.lists(line_text, min_size=1, max_size=6).map(
    lambda lines: "".join(f"{line}\n" for line in lines)
)
names = st.text(
    alphabet=st.characters(blacklist_categories=("C", "Z"), blacklist_characters="+"),
    min_size=1,
    max_size=20,
)


@given(note_texts, st.lists(st.tuples(names, st.binary(min_size=5, max_size=80)), min_size=1))
def test_a_signed_note_reads_back_to_itself_byte_for_byte(
    text: str, signatures: list[tuple[str, bytes]]
) -> None:
    note = SignedNote(text, tuple(NoteSignature(n, raw[:4], raw[4:]) for n, raw in signatures))
    written = str(note)
    assert SignedNote.parse(written) == note
    assert str(SignedNote.parse(written)) == written


def test_a_note_text_may_hold_empty_lines_and_splits_at_the_last_one() -> None:
    note = signed_by(key(), "first\n\nthird\n")
    parsed = SignedNote.parse(str(note))
    assert parsed.text == "first\n\nthird\n"
    verify_note(parsed, [key()], stand_in_check)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("text\n\n\u2014 name AAAAAAA=", "end with a newline"),
        ("text\n\u2014 name AAAAAAA=\n", "blank line"),
        ("text\n\n", "at least one signature"),
        ("text\n\n- name AAAAAAA=\n", "em dash"),
        ("text\n\n\u2014 name\n", "a key name and a signature"),
        ("text\n\n\u2014 name AAAA\n", "4-byte key id"),
        ("text\n\n\u2014 name AAAAAA==\n", "4-byte key id"),
        ("text\n\n\u2014 name AAAAAAB=\n", "canonical base64"),
        ("text\n\n\u2014 name AAAAAAA= extra\n", "not base64"),
        ("te\txt\n\n\u2014 name AAAAAAA=\n", "control characters"),
        ("text\r\n\n\u2014 name AAAAAAA=\n", "control characters"),
        ("text\n\n\u2014 name AAAAAAA=\n\n", "at least one signature"),
    ],
)
def test_a_malformed_signed_note_is_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(MalformedError, match=reason):
        SignedNote.parse(text)


def test_signatures_by_unknown_keys_are_ignored_and_a_known_one_must_verify() -> None:
    server, witness = key(), key("witness.example", b"witness")
    note = signed_by(server, "hello\n")
    stranger = NoteSignature("stranger.example", b"\x00\x01\x02\x03", b"\x00" * 64)
    same_name_other_id = NoteSignature(SERVER, b"\xff\xff\xff\xff", b"\x00" * 64)
    crowded = SignedNote(note.text, (stranger, same_name_other_id, *note.signatures))
    assert verify_note(crowded, [server, witness], stand_in_check) == (server,)


def test_a_note_signed_only_by_unknown_keys_is_refused() -> None:
    note = signed_by(key("someone.else/diceledger", b"other"), "hello\n")
    with pytest.raises(SignatureError, match="no trusted key signed this note"):
        verify_note(note, [key()], stand_in_check)


def test_a_bad_signature_by_a_known_key_rejects_the_whole_note() -> None:
    server, witness = key(), key("witness.example", b"witness")
    good = signed_by(witness, "hello\n").signatures[0]
    forged = NoteSignature(SERVER, server.key_id, b"\x00" * 64)
    note = SignedNote("hello\n", (good, forged))
    with pytest.raises(SignatureError, match="forged"):
        verify_note(note, [server, witness], stand_in_check)


def test_a_changed_text_fails_its_signature() -> None:
    note = signed_by(key(), "roll: 17\n")
    with pytest.raises(SignatureError):
        verify_note(SignedNote("roll: 20\n", note.signatures), [key()], stand_in_check)


# ---- checkpoints ---------------------------------------------------------------------------


@given(st.integers(min_value=0, max_value=10**12), st.binary(min_size=32, max_size=32))
def test_a_checkpoint_reads_back_to_itself(size: int, root: bytes) -> None:
    checkpoint = Checkpoint(origin_for(SERVER, "crypt-1a2b3c"), size, root, ("ext one",))
    assert Checkpoint.parse(checkpoint.text()) == checkpoint


def test_a_checkpoints_text_is_origin_size_and_base64_root() -> None:
    text = Checkpoint("a.example/diceledger/s1", 3, bytes(range(32))).text()
    assert text == "a.example/diceledger/s1\n3\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("origin\n3\n", "needs an origin"),
        ("origin\n03\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", "plain decimal"),
        ("origin\n-3\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", "plain decimal"),
        ("origin\n\u0663\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", "plain decimal"),
        ("origin\n3\nAAEC\n", "32 bytes"),
        ("\n3\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", "non-empty"),
        ("origin\n3\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n\n", "extension"),
        ("origin\n3\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "newline"),
    ],
)
def test_a_malformed_checkpoint_is_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(MalformedError, match=reason):
        Checkpoint.parse(text)


def test_a_signed_checkpoint_opens_with_its_session_and_signer() -> None:
    checkpoint = checkpoint_of(5)
    note = signed_by(key(), checkpoint.text())
    opened = open_checkpoint(str(note), [key()], stand_in_check)
    assert opened == SignedCheckpoint(checkpoint, note, SERVER)
    assert opened.session_id == "crypt-1a2b3c"
    assert str(opened) == str(note)


def test_a_checkpoint_for_another_servers_origin_is_refused() -> None:
    stray = Checkpoint("elsewhere.example/diceledger/crypt-1a2b3c", 1, leaves(1)[0])
    note = signed_by(key(), stray.text())
    with pytest.raises(SignatureError, match="not a session of any key"):
        open_checkpoint(str(note), [key()], stand_in_check)


def test_a_kept_checkpoint_is_extended_by_a_later_log_of_the_same_events() -> None:
    tree = MerkleTree(leaves(9))
    kept, later = checkpoint_of(4), checkpoint_of(9)
    check_extends(kept, later, tree.consistency(4, 9))
    check_log(kept, leaves(9))


def test_a_later_log_that_dropped_the_last_event_is_caught() -> None:
    kept = checkpoint_of(5)
    with pytest.raises(ProofError, match="shrank from 5 to 4"):
        check_extends(kept, checkpoint_of(4), ConsistencyProof(4, 4, ()))
    with pytest.raises(ProofError, match="events were removed"):
        check_log(kept, leaves(4))


def test_a_later_log_with_a_rewritten_event_is_caught() -> None:
    forged = leaves(9)
    forged[2] = hashlib.sha256(b"\x00a natural twenty").digest()
    forged_tree = MerkleTree(forged)
    later = Checkpoint(origin_for(SERVER, "crypt-1a2b3c"), 9, forged_tree.root())
    with pytest.raises(ProofError):
        check_extends(checkpoint_of(4), later, forged_tree.consistency(4, 9))
    with pytest.raises(ProofError, match="rewritten"):
        check_log(checkpoint_of(4), forged)


def test_checkpoints_of_two_sessions_do_not_extend_each_other() -> None:
    with pytest.raises(ProofError, match="different logs"):
        check_extends(checkpoint_of(2), checkpoint_of(3, "other-1"), ConsistencyProof(2, 3, ()))


def test_a_proof_for_other_sizes_is_refused() -> None:
    tree = MerkleTree(leaves(9))
    with pytest.raises(ProofError, match="for sizes 3 to 9"):
        check_extends(checkpoint_of(4), checkpoint_of(9), tree.consistency(3, 9))

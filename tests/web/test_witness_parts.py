"""The browser witness's parts give the verdicts and values the Python domain gives.

Signed notes and checkpoints (read, and signatures checked with WebCrypto's Ed25519),
RFC 9162 consistency proofs and the fingerprint words, fed the same inputs in a real
Chromium and in Python.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from diceledger.domain.checkpoint import Checkpoint, open_checkpoint
from diceledger.domain.errors import DiceledgerError
from diceledger.domain.fingerprint import WORDS, checkpoint_label
from diceledger.domain.merkle import ConsistencyProof, MerkleTree, verify_consistency
from diceledger.domain.signed_note import encode_base64
from diceledger.infra.ledger.signing import SigningKey, ed25519_check
from tests.web.browser import run_module

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

Page = tuple["WebDriver", str]
KEY = SigningKey.from_seed("dice.example.org/diceledger", bytes(range(32)))
OTHER = SigningKey.from_seed("dice.example.org/diceledger", bytes(range(1, 33)))
ORIGIN = "dice.example.org/diceledger/tomb-of-ash-1a2b3c"


@pytest.fixture(scope="module")
def page(shared_driver: WebDriver, static_site: str) -> Iterator[Page]:
    shared_driver.get(static_site + "verify.html")  # any page of the origin will do
    yield shared_driver, static_site


def in_page(page: Page, module: str, body: str, *args: object) -> object:
    driver, base = page
    return run_module(driver, base + module, body, *args)


def python_open(note: str) -> object:
    """Return what Python reads of a signed checkpoint by KEY, or that it refuses it."""
    try:
        signed = open_checkpoint(note, (KEY.verifier,), ed25519_check)
    except DiceledgerError:
        return "refused"
    checkpoint = signed.checkpoint
    return [checkpoint.origin, checkpoint.size, checkpoint.root.hex(), list(checkpoint.extensions)]


OPEN = """
const { toHex } = await import(args[1] + "bytes.js");
const key = await m.parseVerifierKey(args[0]);
const out = [];
for (const note of args[2]) {
  try {
    const c = await m.openCheckpoint(note, key);
    out.push([c.origin, c.size, toHex(c.root), c.extensions]);
  } catch (error) {
    if (!(error instanceof m.NoteError)) throw error;
    out.push("refused");
  }
}
return out;
"""


def notes() -> list[str]:
    """Signed checkpoints, honest and each broken in one way the reader must refuse."""
    root = hashlib.sha256(b"a root").digest()
    honest = KEY.sign_checkpoint(Checkpoint(ORIGIN, 12, root)).note
    with_extension = KEY.sign_checkpoint(Checkpoint(ORIGIN, 3, root, ("ext line",)))
    text, signature = str(honest).split("\n\n")
    forged_raw = bytearray(honest.signatures[0].signature)
    forged_raw[0] ^= 1
    forged = f"{text}\n\n\u2014 {KEY.name} {encode_base64(KEY.key_id + bytes(forged_raw))}\n"
    return [
        str(honest),
        str(with_extension),
        str(KEY.sign_checkpoint(Checkpoint(ORIGIN, 0, root))),
        str(OTHER.sign_checkpoint(Checkpoint(ORIGIN, 12, root))),  # another key, one name
        forged,
        KEY.sign_text(Checkpoint("elsewhere.org/diceledger/x", 12, root).text()),
        str(honest).rstrip("\n"),  # no final newline
        str(honest).replace("\n12\n", "\n012\n"),
        str(honest).replace(encode_base64(root), encode_base64(root).rstrip("=")),
        str(honest).replace("\n\n", "\n\x07\n"),
        text + "\n\n",  # no signature
        str(honest).replace("\u2014", "-"),
        f"{text}\n\n{signature}" + f"\u2014 {KEY.name} AAAA\n",
    ]


def test_notes_and_checkpoints_read_and_verify_as_in_python(page: Page) -> None:
    driver, base = page
    given = notes()
    expected = [python_open(note) for note in given]
    got = run_module(driver, base + "signed-note.js", OPEN, str(KEY.verifier), base, given)
    assert got == expected
    assert expected[0] != "refused" and expected.count("refused") == len(given) - 3


def test_a_verifier_key_with_a_wrong_id_is_refused_as_in_python(page: Page) -> None:
    key = str(KEY.verifier)
    name, key_id, encoded = key.split("+", 2)
    wrong = f"{name}+{'0' * 8}+{encoded}"
    body = """
    const out = [];
    for (const text of args) {
      try { out.push((await m.parseVerifierKey(text)).keyId); }
      catch (error) { out.push("refused"); }
    }
    return out;
    """
    assert in_page(page, "signed-note.js", body, key, wrong) == [key_id, "refused"]


CONSISTENCY = """
const { fromHex } = await import(args[1] + "bytes.js");
const out = [];
for (const [oldSize, newSize, proof, oldRoot, newRoot] of args[0]) {
  try {
    const [hashes, from, to] = [proof.map(fromHex), fromHex(oldRoot), fromHex(newRoot)];
    await m.verifyConsistency(oldSize, newSize, hashes, from, to);
    out.push("ok");
  } catch (error) {
    if (!(error instanceof m.ProofError)) throw error;
    out.push("refused");
  }
}
return out;
"""


def test_consistency_proofs_verify_and_fail_as_in_python(page: Page) -> None:
    picks = random.Random(27)  # a fixed seed: the same trees every run
    leaves = [picks.randbytes(32) for _ in range(40)]
    tree = MerkleTree(leaves)
    cases: list[tuple[int, int, list[str], str, str]] = []
    for old_size in range(0, 40):
        for new_size in sorted({old_size, old_size + 1, picks.randint(old_size, 40), 40}):
            proof = [value.hex() for value in tree.consistency(old_size, new_size).hashes]
            old_root, new_root = tree.root(old_size).hex(), tree.root(new_size).hex()
            cases.append((old_size, new_size, proof, old_root, new_root))
            cases.append((old_size, new_size, proof, old_root, leaves[0].hex()))  # a fork
            if proof:
                bent = [proof[0][:-2] + ("00" if proof[0][-2:] != "00" else "01"), *proof[1:]]
                cases.append((old_size, new_size, bent, old_root, new_root))
                cases.append((old_size, new_size, proof[:-1], old_root, new_root))
    expected = []
    for old_size, new_size, proof, old_root, new_root in cases:
        hashes = tuple(bytes.fromhex(value) for value in proof)
        try:
            verify_consistency(
                ConsistencyProof(old_size, new_size, hashes),
                bytes.fromhex(old_root),
                bytes.fromhex(new_root),
            )
            expected.append("ok")
        except DiceledgerError:
            expected.append("refused")
    driver, base = page
    assert run_module(driver, base + "merkle.js", CONSISTENCY, cases, base) == expected
    assert "ok" in expected and "refused" in expected


def test_the_fingerprint_words_are_the_pythons(page: Page) -> None:
    picks = random.Random(5)
    roots = [picks.randbytes(32) for _ in range(30)] + [bytes(32), bytes([255]) * 32]
    body = """
    const { fromHex } = await import(args[1] + "bytes.js");
    return [m.WORDS, args[0].map(([size, root]) => m.checkpointLabel(size, fromHex(root)))];
    """
    given = [(index * 7, root.hex()) for index, root in enumerate(roots)]
    driver, base = page
    words, labels = run_module(driver, base + "witness-words.js", body, given, base)
    assert words == list(WORDS)
    assert labels == [checkpoint_label(size, bytes.fromhex(root)) for size, root in given]

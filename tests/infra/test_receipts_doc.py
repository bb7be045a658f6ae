"""The receipts worked example of docs/verification.md, recomputed from the page alone."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from diceledger.domain.checkpoint import Checkpoint
from diceledger.domain.merkle import (
    ConsistencyProof,
    InclusionProof,
    MerkleTree,
    node_hash,
    verify_consistency,
    verify_inclusion,
)
from diceledger.domain.receipt import Receipt, ReceiptEntry, verify_receipt
from diceledger.domain.signed_note import SignedNote, VerifierKey
from diceledger.infra.ledger.signing import SigningKey, ed25519_check, open_signed_checkpoint

DOC = Path(__file__).resolve().parents[2] / "docs" / "verification.md"


def page() -> str:
    return DOC.read_text(encoding="utf-8")


def values() -> dict[str, str]:
    pairs = {}
    for block in re.findall(r"```tree\n(.*?)```", page(), flags=re.S):
        for line in block.splitlines():
            key, _, value = line.partition(":")
            pairs[key.strip()] = value.strip()
    return pairs


def documented_note() -> str:
    (note,) = re.findall(r"```note\n(.*?)```", page(), flags=re.S)
    return str(note)


def hashes(key: str) -> tuple[bytes, ...]:
    return tuple(bytes.fromhex(value) for value in values()[key].split())


def test_the_documented_leaves_nodes_and_roots_are_rfc_9162s() -> None:
    v = values()
    leaves = [hashlib.sha256(b"\x00" + f"event {n}".encode()).digest() for n in (1, 2, 3)]
    assert [leaf.hex() for leaf in leaves] == [v[f"leaf {i}"] for i in range(3)]
    assert node_hash(leaves[0], leaves[1]).hex() == v["node 0-1"] == v["root of 2"]
    assert node_hash(bytes.fromhex(v["node 0-1"]), leaves[2]).hex() == v["root of 3"]
    tree = MerkleTree(leaves)
    assert tree.root(3).hex() == v["root of 3"]


def test_the_documented_proofs_are_the_ledgers_and_verify() -> None:
    v = values()
    tree = MerkleTree([bytes.fromhex(v[f"leaf {i}"]) for i in range(3)])
    root2, root3 = bytes.fromhex(v["root of 2"]), bytes.fromhex(v["root of 3"])
    for index in (2, 0):
        proof = InclusionProof(index, 3, hashes(f"inclusion {index} in 3"))
        assert proof == tree.inclusion(index, 3)
        verify_inclusion(bytes.fromhex(v[f"leaf {index}"]), proof, root3)
    consistency = ConsistencyProof(2, 3, hashes("consistency 2 to 3"))
    assert consistency == tree.consistency(2, 3)
    verify_consistency(consistency, root2, root3)


def test_the_documented_key_id_verifier_key_and_signature_follow_from_the_seed() -> None:
    v = values()
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["private seed"]))
    key = SigningKey(v["key name"], private)
    assert key.public_key.hex() == v["public key"]
    material = v["key name"].encode() + b"\n\x01" + key.public_key
    assert hashlib.sha256(material).digest()[:4].hex() == v["key id"] == key.key_id.hex()
    assert str(key.verifier) == v["verifier key"]
    note = SignedNote.parse(documented_note())
    assert private.sign(note.text.encode()).hex() == v["signature"]
    (line,) = note.signatures
    assert base64.b64decode(str(line.line()).split(" ")[-1]).hex() == v["key id"] + v["signature"]


def test_the_documented_checkpoint_is_the_signed_head_of_the_three_events() -> None:
    v = values()
    text = documented_note()
    body = Checkpoint.parse(SignedNote.parse(text).text)
    assert body.origin == "dice.example/diceledger/crypt-1a2b3c"
    assert body.size == 3 and body.root.hex() == v["root of 3"]
    opened = open_signed_checkpoint(text, (VerifierKey.parse(v["verifier key"]),))
    assert opened.session_id == "crypt-1a2b3c"
    key = SigningKey.from_seed(v["key name"], bytes.fromhex(v["private seed"]))
    assert str(key.sign_checkpoint(body)) == text


def documented_receipt() -> str:
    (receipt,) = re.findall(r"```receipt\n(.*?)```", page(), flags=re.S)
    return str(receipt)


def test_the_documented_receipt_is_the_one_the_code_builds_and_it_verifies() -> None:
    v = values()
    receipt = Receipt.parse(documented_receipt())
    (entry,) = receipt.entries
    assert entry.leaf().hex() == v["receipt leaf"]  # the leaf is the event's chain hash
    tree = MerkleTree([bytes.fromhex(v["leaf 0"]), bytes.fromhex(v["leaf 1"]), entry.leaf()])
    assert tree.root().hex() == v["receipt root"]
    assert entry.proof == tree.inclusion(2, 3)
    assert entry.proof.hashes == (bytes.fromhex(v["node 0-1"]),)
    key = SigningKey.from_seed(v["key name"], bytes.fromhex(v["private seed"]))
    signed = key.sign_checkpoint(Checkpoint("dice.example/diceledger/crypt-1a2b3c", 3, tree.root()))
    assert receipt.checkpoint == str(signed)
    assert receipt.verifier_key == v["verifier key"]
    rebuilt = Receipt(
        str(signed), (ReceiptEntry(entry.record, tree.inclusion(2)),), v["verifier key"]
    )
    assert rebuilt.to_json() == documented_receipt()
    verified = verify_receipt(receipt, [VerifierKey.parse(v["verifier key"])], ed25519_check)
    assert verified.records[0]["event_type"] == "SeedCommitted"

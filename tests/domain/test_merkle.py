"""Merkle roots and proofs agree with RFC 9162's recursive definitions, and catch tampering.

The reference below is written straight from RFC 9162 section 2.1 (MTH, PATH, PROOF and
SUBPROOF), recursing over lists of entries; it shares no code with domain.merkle.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.errors import ProofError
from diceledger.domain.merkle import (
    EMPTY_ROOT,
    ConsistencyProof,
    InclusionProof,
    MerkleTree,
    consistency_plan,
    grow,
    inclusion_plan,
    plan_nodes,
    root_plan,
    verify_consistency,
    verify_inclusion,
)

# ---- the reference: RFC 9162 section 2.1, recursion over the entries ----------------------


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def k_for(n: int) -> int:
    """The largest power of two smaller than n."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(entries: list[bytes]) -> bytes:
    if not entries:
        return sha(b"")
    if len(entries) == 1:
        return sha(b"\x00" + entries[0])
    k = k_for(len(entries))
    return sha(b"\x01" + mth(entries[:k]) + mth(entries[k:]))


def path(m: int, entries: list[bytes]) -> list[bytes]:
    if len(entries) == 1:
        return []
    k = k_for(len(entries))
    if m < k:
        return path(m, entries[:k]) + [mth(entries[k:])]
    return path(m - k, entries[k:]) + [mth(entries[:k])]


def subproof(m: int, entries: list[bytes], complete: bool) -> list[bytes]:
    n = len(entries)
    if m == n:
        return [] if complete else [mth(entries)]
    k = k_for(n)
    if m <= k:
        return subproof(m, entries[:k], complete) + [mth(entries[k:])]
    return subproof(m - k, entries[k:], False) + [mth(entries[:k])]


def proof(m: int, entries: list[bytes]) -> list[bytes]:
    return subproof(m, entries, True)


# ---- helpers ----------------------------------------------------------------------------


def entries_of(n: int) -> list[bytes]:
    return [f"entry {i}".encode() for i in range(n)]


def leaves_of(entries: list[bytes]) -> list[bytes]:
    return [sha(b"\x00" + entry) for entry in entries]


TREES = {300: MerkleTree(leaves_of(entries_of(300)))}
sizes = st.integers(min_value=1, max_value=300)


@st.composite
def size_and_index(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(sizes)
    return size, draw(st.integers(min_value=0, max_value=size - 1))


@st.composite
def two_sizes(draw: st.DrawFn) -> tuple[int, int]:
    new = draw(sizes)
    return draw(st.integers(min_value=1, max_value=new)), new


def flip(value: bytes, bit: int) -> bytes:
    raw = bytearray(value)
    raw[bit // 8 % len(raw)] ^= 1 << (bit % 8)
    return bytes(raw)


# ---- agreement ----------------------------------------------------------------------------


@settings(max_examples=200)
@given(sizes)
def test_the_root_of_any_size_is_rfc_9162s_merkle_tree_hash(size: int) -> None:
    assert TREES[300].root(size) == mth(entries_of(size))


def test_the_empty_tree_has_the_hash_of_nothing() -> None:
    assert MerkleTree().root() == EMPTY_ROOT == mth([])


@settings(max_examples=300)
@given(size_and_index())
def test_inclusion_proofs_are_rfc_9162s_audit_paths(case: tuple[int, int]) -> None:
    size, index = case
    built = TREES[300].inclusion(index, size)
    assert list(built.hashes) == path(index, entries_of(size))
    verify_inclusion(leaves_of(entries_of(size))[index], built, mth(entries_of(size)))


@settings(max_examples=300)
@given(two_sizes())
def test_consistency_proofs_are_rfc_9162s_and_verify(case: tuple[int, int]) -> None:
    old, new = case
    built = TREES[300].consistency(old, new)
    expected = proof(old, entries_of(new)) if old < new else []
    assert list(built.hashes) == expected
    verify_consistency(built, mth(entries_of(old)), mth(entries_of(new)))


@settings(max_examples=100)
@given(st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=12))
def test_a_tree_grown_in_batches_stores_each_complete_subtree_once(batches: list[int]) -> None:
    leaves = leaves_of(entries_of(sum(batches)))
    nodes: dict[tuple[int, int], bytes] = {}
    size = 0
    for count in batches:
        edge = [nodes[node] for node in root_plan(size)]
        created = grow(size, edge, leaves[size : size + count])
        assert not set(node for node, _ in created) & set(nodes)  # written once, never again
        nodes.update(created)
        size += count
    # A tree of n leaves has exactly 2n - popcount(n) complete subtrees.
    assert len(nodes) == 2 * size - bin(size).count("1")
    assert nodes == dict(MerkleTree(leaves).nodes)


@settings(max_examples=200)
@given(two_sizes())
def test_proofs_need_only_logarithmically_many_stored_nodes(case: tuple[int, int]) -> None:
    old, new = case
    limit = 2 * new.bit_length() + 2
    assert len(plan_nodes(consistency_plan(old, new))) <= limit
    assert len(plan_nodes(inclusion_plan(old - 1, new))) <= limit


# ---- tampering ----------------------------------------------------------------------------


@settings(max_examples=200)
@given(size_and_index(), st.integers(min_value=0, max_value=255), st.data())
def test_another_leaf_a_changed_proof_hash_or_root_fails_inclusion(
    case: tuple[int, int], bit: int, data: st.DataObject
) -> None:
    size, index = case
    tree = TREES[300]
    leaf, root = tree.nodes[(0, index)], tree.root(size)
    good = tree.inclusion(index, size)
    with pytest.raises(ProofError):
        verify_inclusion(flip(leaf, bit), good, root)
    with pytest.raises(ProofError):
        verify_inclusion(leaf, good, flip(root, bit))
    if good.hashes:
        at = data.draw(st.integers(min_value=0, max_value=len(good.hashes) - 1))
        hashes = list(good.hashes)
        hashes[at] = flip(hashes[at], bit)
        with pytest.raises(ProofError):
            verify_inclusion(leaf, InclusionProof(index, size, tuple(hashes)), root)
        with pytest.raises(ProofError):
            verify_inclusion(leaf, InclusionProof(index, size, good.hashes[:-1]), root)
    with pytest.raises(ProofError):
        verify_inclusion(leaf, InclusionProof(index, size, (*good.hashes, root)), root)
    other = data.draw(st.integers(min_value=0, max_value=size - 1))
    if tree.nodes[(0, other)] != leaf:
        with pytest.raises(ProofError):
            verify_inclusion(tree.nodes[(0, other)], good, root)


@settings(max_examples=200)
@given(two_sizes(), st.integers(min_value=0, max_value=255), st.data())
def test_a_changed_hash_or_root_fails_consistency(
    case: tuple[int, int], bit: int, data: st.DataObject
) -> None:
    old, new = case
    tree = TREES[300]
    good = tree.consistency(old, new)
    old_root, new_root = tree.root(old), tree.root(new)
    with pytest.raises(ProofError):
        verify_consistency(good, flip(old_root, bit), new_root)
    with pytest.raises(ProofError):
        verify_consistency(good, old_root, flip(new_root, bit))
    if good.hashes:
        at = data.draw(st.integers(min_value=0, max_value=len(good.hashes) - 1))
        hashes = list(good.hashes)
        hashes[at] = flip(hashes[at], bit)
        with pytest.raises(ProofError):
            verify_consistency(ConsistencyProof(old, new, tuple(hashes)), old_root, new_root)
        with pytest.raises(ProofError):
            verify_consistency(ConsistencyProof(old, new, good.hashes[1:]), old_root, new_root)


@settings(max_examples=100)
@given(two_sizes(), st.integers(min_value=0, max_value=10))
def test_a_rewritten_history_is_not_consistent_with_the_old_root(
    case: tuple[int, int], changed: int
) -> None:
    old, new = case
    entries = entries_of(new)
    forged = list(entries)
    forged[changed % old] = b"a different roll"
    forged_tree = MerkleTree(leaves_of(forged))
    with pytest.raises(ProofError):
        verify_consistency(forged_tree.consistency(old, new), mth(entries[:old]), mth(forged))


def test_a_tree_of_one_leaf_proves_with_empty_proofs() -> None:
    tree = MerkleTree(leaves_of([b"only"]))
    verify_inclusion(tree.root(), tree.inclusion(0), tree.root())
    verify_consistency(tree.consistency(1, 1), tree.root(), tree.root())
    verify_consistency(tree.consistency(0, 1), EMPTY_ROOT, tree.root())


def test_a_shrunk_tree_or_a_leaf_past_the_end_is_refused() -> None:
    tree = TREES[300]
    with pytest.raises(ProofError, match="cannot extend"):
        verify_consistency(ConsistencyProof(5, 4, ()), tree.root(5), tree.root(4))
    with pytest.raises(ProofError, match="not in a tree"):
        verify_inclusion(tree.root(), InclusionProof(4, 4, ()), tree.root(4))
    with pytest.raises(ValueError):
        tree.consistency(5, 4)

"""RFC 9162 Merkle trees over a session's events: roots, proofs, their checks, growth.

The leaves are the events' chain hashes used as they are. An event's hash is already
SHA-256(0x00 || canonical_json(record)), which is RFC 9162's leaf hash of the log entry
``canonical_json(record)``; hashing it once more would make the 32-byte hash the entry
instead, add a step every verifier must know, and break the promise of the hash chain's
design that the tree is built over the same leaves. Interior nodes are
SHA-256(0x01 || left || right), the empty tree's root is SHA-256 of nothing.

A tree grows leaf by leaf and is kept as its complete subtrees: node (level, index) is the
root of the 2**level leaves from index * 2**level on, and never changes once complete.
The root and every proof of any size are folds of O(log n) such nodes, so a stored tree
answers without reading its leaves. Proof functions work in two steps: a *plan* names
the nodes each proof hash folds (so a store fetches them in one query), then
``resolve`` folds the fetched hashes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from diceledger.domain.errors import ProofError

HASH_SIZE = 32
LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"
EMPTY_ROOT = hashlib.sha256(b"").digest()

NodeId = tuple[int, int]  # (level, index): the complete subtree of 2**level leaves
Plan = tuple[tuple[NodeId, ...], ...]  # for each proof hash, the nodes it folds


@dataclass(frozen=True, slots=True)
class InclusionProof:
    """The hashes that lead from leaf ``index`` to the root of a tree of ``size`` leaves."""

    index: int
    size: int
    hashes: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class ConsistencyProof:
    """The hashes that show a tree of ``old_size`` leaves is a prefix of one of ``new_size``."""

    old_size: int
    new_size: int
    hashes: tuple[bytes, ...]


def leaf_hash(entry: bytes) -> bytes:
    """Return RFC 9162's hash of one log entry (an event's hash is this of its record)."""
    return hashlib.sha256(LEAF_PREFIX + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """Return the hash of an interior node from its children's hashes."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def fold(hashes: Sequence[bytes]) -> bytes:
    """Return the root over consecutive subtrees, largest first (the right edge folds first)."""
    if not hashes:
        return EMPTY_ROOT
    root = hashes[-1]
    for left in reversed(hashes[:-1]):
        root = node_hash(left, root)
    return root


def covering_nodes(start: int, end: int) -> tuple[NodeId, ...]:
    """Return the complete subtrees, largest first, whose fold is the hash of leaves [start, end).

    Valid for every range RFC 9162's recursions visit: ``start`` is a multiple of a power of
    two at least ``end - start``, so each subtree in the binary split is aligned.
    """
    nodes: list[NodeId] = []
    remaining = end - start
    while remaining:
        level = remaining.bit_length() - 1
        nodes.append((level, start >> level))
        start += 1 << level
        remaining -= 1 << level
    return tuple(nodes)


def root_plan(size: int) -> tuple[NodeId, ...]:
    """Return the nodes whose fold is the root of a tree of ``size`` leaves."""
    _check_size(size)
    return covering_nodes(0, size)


def inclusion_plan(index: int, size: int) -> Plan:
    """Return the plan of the inclusion proof of leaf ``index`` in a tree of ``size``.

    RFC 9162 section 2.1.3.1: the sibling subtrees from the leaf up to the root.
    """
    _check_size(size)
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    plan: list[tuple[NodeId, ...]] = []
    start, end = 0, size
    while end - start > 1:
        split = start + _largest_power_below(end - start)
        if index < split:
            plan.append(covering_nodes(split, end))
            end = split
        else:
            plan.append(covering_nodes(start, split))
            start = split
    return tuple(reversed(plan))


def consistency_plan(old_size: int, new_size: int) -> Plan:
    """Return the plan of the consistency proof from ``old_size`` leaves to ``new_size``.

    RFC 9162 section 2.1.4.1; empty when the old tree is empty or the sizes are equal.
    """
    _check_size(old_size)
    _check_size(new_size)
    if old_size > new_size:
        raise ValueError(f"a tree of {new_size} leaves cannot extend one of {old_size}")
    if old_size in (0, new_size):
        return ()
    plan: list[tuple[NodeId, ...]] = []
    start, end, whole = 0, new_size, True
    target = old_size
    while target != end - start:
        split = _largest_power_below(end - start)
        if target <= split:
            plan.append(covering_nodes(start + split, end))
            end = start + split
        else:
            plan.append(covering_nodes(start, start + split))
            start, target, whole = start + split, target - split, False
    if not whole:
        plan.append(covering_nodes(start, end))
    return tuple(reversed(plan))


def resolve(plan: Plan, lookup: Callable[[NodeId], bytes]) -> tuple[bytes, ...]:
    """Fold each step of a plan from the node hashes ``lookup`` returns."""
    return tuple(fold([lookup(node) for node in step]) for step in plan)


def plan_nodes(plan: Plan) -> set[NodeId]:
    """Return every node a plan needs, to fetch them at once."""
    return {node for step in plan for node in step}


def root_from_inclusion(leaf: bytes, proof: InclusionProof) -> bytes:
    """Return the root a proof leads to from ``leaf`` (RFC 9162 section 2.1.3.2)."""
    index, size = proof.index, proof.size
    if not 0 <= index < size:
        raise _proof_error(f"leaf {index} is not in a tree of {size} leaves")
    fn, sn, root = index, size - 1, leaf
    for sibling in proof.hashes:
        _check_hash(sibling)
        if sn == 0:
            raise _proof_error("the inclusion proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            root = node_hash(sibling, root)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            root = node_hash(root, sibling)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise _proof_error("the inclusion proof is shorter than the tree is deep")
    return root


def verify_inclusion(leaf: bytes, proof: InclusionProof, root: bytes) -> None:
    """Check that ``leaf`` is leaf ``proof.index`` of the tree whose root is ``root``."""
    if root_from_inclusion(leaf, proof) != root:
        raise _proof_error(
            f"leaf {proof.index} is not in the tree of {proof.size} leaves with this root"
        )


def verify_consistency(proof: ConsistencyProof, old_root: bytes, new_root: bytes) -> None:
    """Check that the tree with ``old_root`` is a prefix of the one with ``new_root``.

    RFC 9162 section 2.1.4.2, plus the two cases it leaves out: an empty old tree (any
    tree extends it) and equal sizes (the roots must be equal), both with an empty proof.
    """
    first, second, path = proof.old_size, proof.new_size, list(proof.hashes)
    for value in path:
        _check_hash(value)
    if not 0 <= first <= second:
        raise _proof_error(f"a tree of {second} leaves cannot extend one of {first}")
    if first == 0 or first == second:
        if path:
            raise _proof_error("a consistency proof between these sizes must be empty")
        expected = EMPTY_ROOT if first == 0 else new_root
        if old_root != expected:
            raise _proof_error(f"the roots of the trees of {first} leaves differ")
        return
    if not path:
        raise _proof_error("the consistency proof is empty")
    if first & (first - 1) == 0:
        path.insert(0, old_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    first_root = second_root = path[0]
    for value in path[1:]:
        if sn == 0:
            raise _proof_error("the consistency proof is longer than the trees need")
        if fn & 1 or fn == sn:
            first_root = node_hash(value, first_root)
            second_root = node_hash(value, second_root)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            second_root = node_hash(second_root, value)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise _proof_error("the consistency proof is shorter than the trees need")
    if first_root != old_root:
        raise _proof_error(f"the proof does not lead to the root of the tree of {first} leaves")
    if second_root != new_root:
        raise _proof_error(f"the tree of {second} leaves does not extend the one of {first}")


def grow(size: int, edge: Sequence[bytes], leaves: Sequence[bytes]) -> list[tuple[NodeId, bytes]]:
    """Return every node completed by appending ``leaves`` to a tree of ``size`` leaves.

    ``edge`` holds the hashes of ``root_plan(size)``'s nodes, in order: all a tree needs
    to grow. The result lists each new node once, children before their parent.
    """
    plan = root_plan(size)
    if len(edge) != len(plan):
        raise ValueError(f"a tree of {size} leaves has {len(plan)} edge nodes, not {len(edge)}")
    pending = dict(zip(plan, edge, strict=True))
    created: list[tuple[NodeId, bytes]] = []
    for offset, leaf in enumerate(leaves):
        _check_hash(leaf)
        node, value = (0, size + offset), leaf
        created.append((node, value))
        while node[1] & 1:  # a right child completes its parent
            level, index = node
            value = node_hash(pending.pop((level, index - 1)), value)
            node = (level + 1, index >> 1)
            created.append((node, value))
        pending[node] = value
    return created


class MerkleTree:
    """A tree held in memory: for tests, exports and receipts checked offline."""

    def __init__(self, leaves: Sequence[bytes] = ()) -> None:
        self._nodes: dict[NodeId, bytes] = {}
        self._size = 0
        self.extend(leaves)

    @property
    def size(self) -> int:
        """Return the number of leaves."""
        return self._size

    @property
    def nodes(self) -> Mapping[NodeId, bytes]:
        """Return every complete subtree's hash."""
        return self._nodes

    def extend(self, leaves: Sequence[bytes]) -> None:
        """Append leaves (their RFC 9162 leaf hashes)."""
        edge = [self._nodes[node] for node in root_plan(self._size)]
        self._nodes.update(grow(self._size, edge, leaves))
        self._size += len(leaves)

    def root(self, size: int | None = None) -> bytes:
        """Return the root of the first ``size`` leaves (all by default)."""
        size = self._size if size is None else self._within(size)
        return fold([self._nodes[node] for node in root_plan(size)])

    def inclusion(self, index: int, size: int | None = None) -> InclusionProof:
        """Return the inclusion proof of leaf ``index`` in the first ``size`` leaves."""
        size = self._size if size is None else self._within(size)
        hashes = resolve(inclusion_plan(index, size), self._nodes.__getitem__)
        return InclusionProof(index, size, hashes)

    def consistency(self, old_size: int, new_size: int | None = None) -> ConsistencyProof:
        """Return the proof that the first ``old_size`` leaves are a prefix of ``new_size``."""
        new_size = self._size if new_size is None else self._within(new_size)
        hashes = resolve(consistency_plan(old_size, new_size), self._nodes.__getitem__)
        return ConsistencyProof(old_size, new_size, hashes)

    def _within(self, size: int) -> int:
        if not 0 <= size <= self._size:
            raise ValueError(f"the tree has {self._size} leaves, not {size}")
        return size


def _largest_power_below(n: int) -> int:
    """Return the largest power of two smaller than ``n`` (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


def _check_size(size: int) -> None:
    if size < 0:
        raise ValueError(f"a tree cannot have {size} leaves")


def _check_hash(value: bytes) -> None:
    if len(value) != HASH_SIZE:
        raise _proof_error(f"a proof hash has {len(value)} bytes, not {HASH_SIZE}")


def _proof_error(message: str) -> ProofError:
    return ProofError(message)

// RFC 9162 consistency proofs (section 2.1.4.2) checked as domain/merkle.py checks them
// (a test feeds both the same proofs): interior nodes are SHA-256(0x01 || left || right).

import { concat, toHex } from "./bytes.js";

export class ProofError extends Error {}

const NODE_PREFIX = new Uint8Array([1]);
const EMPTY_ROOT_HEX = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

async function nodeHash(left, right) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(NODE_PREFIX, left, right)));
}

function same(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function powerOfTwo(n) {
  let rest = n;
  while (rest % 2 === 0) rest /= 2;
  return rest === 1;
}

/**
 * Check that the tree of `oldSize` leaves with `oldRoot` is a prefix of the tree of
 * `newSize` leaves with `newRoot`, by `proof` (an array of 32-byte hashes); throw
 * ProofError with the reason when it is not.
 */
export async function verifyConsistency(oldSize, newSize, proof, oldRoot, newRoot) {
  const path = [...proof];
  if (path.some((value) => value.length !== 32)) throw new ProofError("a proof hash has not 32 bytes");
  if (!(0 <= oldSize && oldSize <= newSize)) {
    throw new ProofError(`a tree of ${newSize} leaves cannot extend one of ${oldSize}`);
  }
  if (oldSize === 0 || oldSize === newSize) {
    if (path.length) throw new ProofError("a consistency proof between these sizes must be empty");
    const expected = oldSize === 0 ? toHex(oldRoot) === EMPTY_ROOT_HEX : same(oldRoot, newRoot);
    if (!expected) throw new ProofError(`the roots of the trees of ${oldSize} leaves differ`);
    return;
  }
  if (!path.length) throw new ProofError("the consistency proof is empty");
  // Sizes are exact numbers below 2**53: halve with Math.floor, never with 32-bit >>.
  if (powerOfTwo(oldSize)) path.unshift(oldRoot);
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let firstRoot = path[0];
  let secondRoot = path[0];
  for (const value of path.slice(1)) {
    if (sn === 0) throw new ProofError("the consistency proof is longer than the trees need");
    if (fn % 2 === 1 || fn === sn) {
      firstRoot = await nodeHash(value, firstRoot);
      secondRoot = await nodeHash(value, secondRoot);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      secondRoot = await nodeHash(secondRoot, value);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new ProofError("the consistency proof is shorter than the trees need");
  if (!same(firstRoot, oldRoot)) {
    throw new ProofError(`the proof does not lead to the root of the tree of ${oldSize} leaves`);
  }
  if (!same(secondRoot, newRoot)) {
    throw new ProofError(`the tree of ${newSize} leaves does not extend the one of ${oldSize}`);
  }
}

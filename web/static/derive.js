// Dice from a revealed seed, derived exactly as docs/verification.md says: for each roll
// request (or reroll command) a fixed message, HMAC-SHA256 blocks 0, 1, 2 ... keyed by the
// seed, eight big-endian 32-bit words a block, and rejection of the words that would bias
// a die.

import { concat, sha256Hex, utf8 } from "./bytes.js";

export const ALGORITHM = "hmac-sha256/u32-reject/v1";
const TAG = utf8("diceledger/draw/v1");
const WORDS_PER_BLOCK = 8;
const U32 = 2 ** 32;

function field(bytes) {
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, bytes.length);
  return concat(length, bytes);
}

function uint(value, size) {
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  if (size === 8) view.setBigUint64(0, BigInt(value));
  else view.setUint32(0, value);
  return bytes;
}

/** Return the fixed part of one roll's HMAC message (the block number follows it). */
export function drawMessage(sessionId, nonce, clientSeed = "", salt = "") {
  return concat(
    TAG,
    field(utf8(sessionId)),
    field(uint(nonce, 8)),
    field(utf8(clientSeed)),
    field(utf8(salt)),
  );
}

/** Return the face a word gives a die of ``sides``, or null when the word must be skipped. */
export function faceFromWord(word, sides) {
  if (word >= U32 - (U32 % sides)) return null;
  return (word % sides) + 1;
}

/** Return the commitment to a seed: SHA-256 of its bytes, in hex. */
export function commitment(seed) {
  return sha256Hex(seed);
}

/** The dice of one nonce, drawn one after another from the seed. */
export class SeededSource {
  static async create(seed, sessionId, nonce, clientSeed, salt) {
    const algorithm = { name: "HMAC", hash: "SHA-256" };
    const key = await crypto.subtle.importKey("raw", seed, algorithm, false, ["sign"]);
    return new SeededSource(key, drawMessage(sessionId, nonce, clientSeed, salt));
  }

  constructor(key, message) {
    this.key = key;
    this.message = message;
    this.block = -1;
    this.words = null;
    this.nextWord = WORDS_PER_BLOCK;
  }

  async wordsOf(block) {
    const mac = await crypto.subtle.sign("HMAC", this.key, concat(this.message, uint(block, 4)));
    const view = new DataView(mac);
    return Array.from({ length: WORDS_PER_BLOCK }, (_, index) => view.getUint32(index * 4));
  }

  /** Return the next die of ``sides`` as {sides, face, block, word}. */
  async draw(sides) {
    for (;;) {
      if (this.nextWord === WORDS_PER_BLOCK) {
        this.block += 1;
        this.words = await this.wordsOf(this.block);
        this.nextWord = 0;
      }
      const word = this.nextWord;
      this.nextWord += 1;
      const face = faceFromWord(this.words[word], sides);
      if (face !== null) return { sides, face, block: this.block, word };
    }
  }
}

// The hash chain of one stream: hash = SHA-256(0x00 || canonical JSON of the record), each
// event linked to the one before it by prev_hash, versions 1, 2, 3 ... without a gap.

import { concat, sha256Hex, utf8 } from "./bytes.js";
import { CanonicalError, canonicalJson } from "./canonical.js";

export const GENESIS_HASH = "0".repeat(64);
const LEAF_PREFIX = new Uint8Array([0]);

/** Return the hash a record should carry (its position is left out), or throw CanonicalError. */
export async function recordHash(record) {
  const hashed = {
    event_id: record.event_id,
    stream_id: record.stream_id,
    stream_version: record.stream_version,
    event_type: record.event_type,
    schema_version: record.schema_version,
    data: record.data,
    meta: record.meta,
    recorded_at: record.recorded_at,
    prev_hash: record.prev_hash,
  };
  return sha256Hex(concat(LEAF_PREFIX, utf8(canonicalJson(hashed))));
}

/** Check one stream's records in order against its running head. */
export class ChainChecker {
  constructor() {
    this.version = 0;
    this.hash = GENESIS_HASH;
  }

  /** Check the next record and advance the head; return the reason it breaks, or null. */
  async check(record) {
    if (record.stream_version !== this.version + 1) {
      return `version ${record.stream_version} follows version ${this.version}`;
    }
    if (record.prev_hash !== this.hash) {
      return "prev_hash does not match the previous event's hash";
    }
    let expected;
    try {
      expected = await recordHash(record);
    } catch (error) {
      if (error instanceof CanonicalError) return error.message;
      throw error;
    }
    if (record.hash !== expected) return "hash does not match the event's contents";
    this.version = record.stream_version;
    this.hash = record.hash;
    return null;
  }

  /** Check a sealed line's link (its own hash cannot be recomputed); advance the head. */
  link(sealed) {
    if (sealed.stream_version !== this.version + 1) {
      return `version ${sealed.stream_version} follows version ${this.version}`;
    }
    if (sealed.prev_hash !== this.hash) {
      return "prev_hash does not match the previous event's hash";
    }
    if (!/^[0-9a-f]{64}$/.test(sealed.hash)) {
      return "a sealed event's hash is not 64 lowercase hex digits";
    }
    this.version = sealed.stream_version;
    this.hash = sealed.hash;
    return null;
  }
}

// Bytes for the verifier: UTF-8, hex both ways, joining, and SHA-256 through WebCrypto.

const encoder = new TextEncoder();

/** Return the UTF-8 bytes of a string (the caller has refused lone surrogates). */
export function utf8(text) {
  return encoder.encode(text);
}

/** Join byte arrays into one. */
export function concat(...parts) {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Return bytes as lowercase hex. */
export function toHex(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

const HEX_PAIR = /^[0-9a-fA-F]{2}$/;
const SPACE = new Set([" ", "\t", "\n", "\v", "\f", "\r"]);

/**
 * Read hex as Python's bytes.fromhex does (either case, ASCII white space between
 * pairs); return null when it is not hex.
 */
export function fromHex(text) {
  const out = [];
  let i = 0;
  while (i < text.length) {
    if (SPACE.has(text[i])) {
      i += 1;
      continue;
    }
    const pair = text.slice(i, i + 2);
    if (!HEX_PAIR.test(pair)) return null;
    out.push(parseInt(pair, 16));
    i += 2;
  }
  return new Uint8Array(out);
}

/** Return the SHA-256 of bytes as lowercase hex. */
export async function sha256Hex(bytes) {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

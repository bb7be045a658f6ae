// Signed notes and checkpoints read as strictly as domain/signed_note.py and
// domain/checkpoint.py read them (a test feeds both the same inputs), and Ed25519
// signatures checked with WebCrypto. Every refusal throws NoteError with the reason.

import { concat, toHex, utf8 } from "./bytes.js";

export class NoteError extends Error {}

const ED25519 = 0x01;
const KEY_ID_SIZE = 4;
const SIGNATURE_PREFIX = "\u2014 "; // em dash, space
const MAX_SIGNATURES = 64;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const NOT_IN_A_NAME = /[\s+]|\p{C}|\p{Z}/u; // space, plus, or not printable

function fail(message) {
  throw new NoteError(message);
}

/** Decode standard base64, accepting only its canonical spelling. */
export function decodeBase64(text, what) {
  if (text.length % 4 !== 0 || !BASE64.test(text)) fail(`the ${what} is not base64`);
  const bytes = Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  if (encodeBase64(bytes) !== text) fail(`the ${what} is not canonical base64`);
  return bytes;
}

export function encodeBase64(bytes) {
  return btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(""));
}

function checkKeyName(name) {
  if (!name) fail("a key name must not be empty");
  if (NOT_IN_A_NAME.test(name)) fail(`key name ${name} holds a space, a plus or an unprintable character`);
  return name;
}

async function keyId(name, publicKey) {
  const material = concat(utf8(name), new Uint8Array([0x0a, ED25519]), publicKey);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", material)).slice(0, KEY_ID_SIZE);
}

/** Read a verifier key `name+keyid+base64(0x01 || key)`; refuse one whose id is wrong. */
export async function parseVerifierKey(text) {
  const first = text.indexOf("+");
  const second = first < 0 ? -1 : text.indexOf("+", first + 1);
  const [name, hexId, encoded] = [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
  if (second < 0 || hexId.length !== 2 * KEY_ID_SIZE) fail(`not a verifier key: ${text}`);
  const material = decodeBase64(encoded, "verifier key");
  if (material.length !== 33 || material[0] !== ED25519) {
    fail("a verifier key must hold 0x01 and a 32-byte Ed25519 key");
  }
  const publicKey = material.slice(1);
  const id = toHex(await keyId(checkKeyName(name), publicKey));
  if (id !== hexId) fail(`verifier key ${name} names id ${hexId}, its key has another`);
  return { text, name, keyId: id, publicKey };
}

function parseSignature(line) {
  if (!line.startsWith(SIGNATURE_PREFIX)) fail("a signature line must start with an em dash");
  const rest = line.slice(SIGNATURE_PREFIX.length);
  const space = rest.indexOf(" ");
  if (space < 0) fail("a signature line needs a key name and a signature");
  const raw = decodeBase64(rest.slice(space + 1), "signature");
  if (raw.length <= KEY_ID_SIZE) fail("a signature must hold a 4-byte key id and the signature");
  const name = checkKeyName(rest.slice(0, space));
  return { name, keyId: toHex(raw.slice(0, KEY_ID_SIZE)), signature: raw.slice(KEY_ID_SIZE) };
}

/** Read a signed note: its text (ending in a newline) and its signature lines. */
export function parseNote(note) {
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note)) {
    fail("a signed note must not hold control characters other than newline");
  }
  if (!note.isWellFormed()) fail("a signed note must be valid UTF-8");
  if (!note.endsWith("\n")) fail("a signed note must end with a newline");
  const split = note.lastIndexOf("\n\n");
  if (split < 0) fail("a signed note needs a blank line before its signatures");
  const lines = note.slice(split + 2, -1).split("\n");
  if (lines.length === 1 && lines[0] === "") fail("a signed note needs at least one signature");
  if (lines.length > MAX_SIGNATURES) fail(`a signed note may carry at most ${MAX_SIGNATURES} signatures`);
  return { text: note.slice(0, split + 1), signatures: lines.map(parseSignature) };
}

/** Read a checkpoint's text: origin, tree size, root (32 bytes) and extension lines. */
export function parseCheckpoint(text) {
  if (!text.endsWith("\n")) fail("a checkpoint's text must end with a newline");
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) fail("a checkpoint needs an origin, a tree size and a root hash");
  const [origin, size, root, ...extensions] = lines;
  if (!origin) fail("a checkpoint's origin must be one non-empty line");
  if (!/^(0|[1-9][0-9]*)$/.test(size)) fail(`a checkpoint's tree size must be a plain decimal: ${size}`);
  const rootBytes = decodeBase64(root, "root hash");
  if (rootBytes.length !== 32) fail("a checkpoint's root hash has 32 bytes");
  if (extensions.some((line) => !line)) fail("a checkpoint's extension lines must be non-empty lines");
  const sessionId = origin.slice(origin.lastIndexOf("/") + 1);
  return { origin, sessionId, size: Number(size), root: rootBytes, extensions };
}

/** Tell whether `signature` (bytes) is `key`'s Ed25519 signature of `message` (bytes). */
async function ed25519Valid(publicKey, message, signature) {
  if (signature.length !== 64) return false;
  const key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
  return crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
}

/**
 * Check a parsed note against one verifier key: null when the key did not sign it, true
 * when its signature verifies; a forged signature by the key throws.
 */
export async function signedBy(note, key) {
  const mine = note.signatures.filter((sig) => sig.name === key.name && sig.keyId === key.keyId);
  if (!mine.length) return null;
  for (const sig of mine) {
    if (!(await ed25519Valid(key.publicKey, utf8(note.text), sig.signature))) {
      fail(`the signature of ${key.name} (${key.keyId}) is forged`);
    }
  }
  return true;
}

/** Read a signed checkpoint signed by `key` for one of its sessions; throw if it is not. */
export async function openCheckpoint(text, key) {
  const note = parseNote(text);
  if (!(await signedBy(note, key))) fail(`key ${key.name} (${key.keyId}) did not sign this checkpoint`);
  const checkpoint = parseCheckpoint(note.text);
  if (!checkpoint.sessionId || checkpoint.origin !== `${key.name}/${checkpoint.sessionId}`) {
    fail(`checkpoint origin ${checkpoint.origin} is not a session of ${key.name}`);
  }
  return { ...checkpoint, note: text };
}

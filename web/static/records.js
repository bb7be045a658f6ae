// Read an export file (JSON Lines, docs/storage.md) into records, refusing every line the
// Python reader (infra/store/exporting.py) refuses, with the same "line N: ..." reasons.

import { FloatNumber } from "./canonical.js";

export const FIELDS = [
  "position",
  "event_id",
  "stream_id",
  "stream_version",
  "event_type",
  "schema_version",
  "data",
  "meta",
  "recorded_at",
  "prev_hash",
  "hash",
];
// A sealed line: an event of a hidden blind roll as a player's export holds it.
export const SEALED_FIELDS = [
  "position",
  "stream_id",
  "stream_version",
  "sealed",
  "roll_id",
  "prev_hash",
  "hash",
];
const INTEGERS = new Set(["position", "stream_version", "schema_version", "roll_id"]);
const OBJECTS = new Set(["data", "meta"]);
const STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ";
// The patterns docs/schema/events.schema.json gives the envelope, as infra/store/exporting.py
// enforces them (the same order, the same reasons).
const PATTERNS = [
  ["event_id", "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"],
  ["recorded_at", "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z"],
  ["prev_hash", "[0-9a-f]{64}"],
  ["hash", "[0-9a-f]{64}"],
];
const AT_LEAST_ONE = ["position", "stream_version", "schema_version"];
const MAX_STREAM_ID = 200;

/** A line of the file that is not a record; ``line`` counts from 1. */
export class ExportError extends Error {
  constructor(line, reason) {
    super(`line ${line}: ${reason}`);
    this.line = line;
  }
}

// Python reads the file with universal newlines: \n, \r and \r\n each end a line.
const LINE = /[^\r\n]*(?:\r\n?|\n)|[^\r\n]+$/g;

/** Return the records of an export's text, in file order, or throw ExportError. */
export function parseExport(text) {
  return Array.from(text.match(LINE) ?? [], (line, index) => parseLine(line, index + 1));
}

/** Return the record on one line (with its line end), or throw ExportError. */
export function parseLine(line, number) {
  if (!line.endsWith("\n")) {
    throw new ExportError(number, "cut short (no line end); the file is partial");
  }
  const document = parseJson(line, number);
  if (!isObject(document)) {
    throw new ExportError(number, "not a JSON object");
  }
  if (Object.hasOwn(document, "sealed")) return parseSealed(document, number);
  checkKeys(document, FIELDS, number, "");
  for (const name of FIELDS) {
    if (!hasType(name, document[name])) throw new ExportError(number, `${name} has the wrong type`);
  }
  for (const [name, pattern] of PATTERNS) {
    if (!new RegExp(`^(?:${pattern})$`).test(document[name])) {
      throw new ExportError(number, `${name} is not like ${pattern}`);
    }
  }
  for (const name of AT_LEAST_ONE) {
    if (document[name] < 1) throw new ExportError(number, `${name} is below 1`);
  }
  // Python counts code points, not UTF-16 units.
  const idLength = [...document.stream_id].length;
  if (idLength < 1 || idLength > MAX_STREAM_ID) {
    throw new ExportError(number, `stream_id is not 1 to ${MAX_STREAM_ID} characters`);
  }
  const recordedAt = normalTimestamp(document.recorded_at);
  if (recordedAt === null) {
    throw new ExportError(number, `recorded_at is not like ${STAMP_FORMAT}`);
  }
  return { ...document, recorded_at: recordedAt, line: number };
}

function checkKeys(document, fields, number, what) {
  const missing = fields.filter((name) => !Object.hasOwn(document, name));
  const extra = Object.keys(document)
    .filter((name) => !fields.includes(name))
    .sort();
  if (missing.length || extra.length) {
    const list = (names) => `[${names.map((name) => `'${name}'`).join(", ")}]`;
    throw new ExportError(
      number,
      `${what}missing ${missing.length ? list(missing) : "nothing"}, unexpected ${list(extra)}`,
    );
  }
}

/** Return a sealed line (its link in the chain, no content), or throw ExportError. */
function parseSealed(document, number) {
  checkKeys(document, SEALED_FIELDS, number, "a sealed line ");
  if (document.sealed !== true) {
    throw new ExportError(number, "sealed is true on a sealed line, or absent");
  }
  for (const name of SEALED_FIELDS) {
    if (name !== "sealed" && !hasType(name, document[name])) {
      throw new ExportError(number, `${name} has the wrong type`);
    }
  }
  return { ...document, line: number };
}

// Python keeps 1.0 a float (which no record may hold); JSON.parse would make it 1. The
// reviver's source text tells the two apart; a browser without it scans the line instead.
const FRACTION = /[.eE]/;
const HAS_SOURCE =
  JSON.parse("[1.5]", (key, value, context) => context?.source ?? value)[0] === "1.5";
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g; // a string or a number

function markFloats(key, value, context) {
  const float = typeof value === "number" && FRACTION.test(context.source);
  return float ? new FloatNumber(context.source) : value;
}

function holdsFloat(line) {
  return (line.match(TOKEN) ?? []).some((token) => token[0] !== '"' && FRACTION.test(token));
}

function parseJson(line, number) {
  let document;
  try {
    document = HAS_SOURCE ? JSON.parse(line, markFloats) : JSON.parse(line);
  } catch (error) {
    throw new ExportError(number, `not JSON (${error.message})`);
  }
  const twice = duplicateKey(line);
  if (twice !== null) {
    throw new ExportError(number, `the key '${twice}' appears twice in an object`);
  }
  if (!HAS_SOURCE && holdsFloat(line)) {
    throw new ExportError(number, "not canonical JSON: a number with a fraction or an exponent");
  }
  return document;
}

// JSON.parse keeps the last of two equal keys; the Python reader refuses them, so the line
// (already known to be JSON) is walked once more for a key named twice in one object.
const PART = /"(?:[^"\\]|\\.)*"|[{}[\],:]/g;

function duplicateKey(line) {
  const open = []; // per nesting level: the keys of an object, or null for an array
  let expectKey = false;
  for (const [part] of line.matchAll(PART)) {
    if (part === "{") {
      open.push(new Set());
      expectKey = true;
    } else if (part === "[") {
      open.push(null);
      expectKey = false;
    } else if (part === "}" || part === "]") {
      open.pop();
      expectKey = false;
    } else if (part === ",") {
      expectKey = open.at(-1) instanceof Set;
    } else if (part === ":") {
      expectKey = false;
    } else if (expectKey) {
      const key = JSON.parse(part);
      const keys = open.at(-1);
      if (keys.has(key)) return key;
      keys.add(key);
      expectKey = false;
    }
  }
  return null;
}

function isObject(value) {
  const plain = value !== null && typeof value === "object" && !Array.isArray(value);
  return plain && !(value instanceof FloatNumber);
}

function hasType(name, value) {
  if (INTEGERS.has(name)) return Number.isInteger(value);
  if (OBJECTS.has(name)) return isObject(value);
  return typeof value === "string";
}

// The fields as Python's strptime reads STAMP_FORMAT (one or two digits, T and Z in
// either case); the hash is then taken over the time written out in full.
const STAMP = new RegExp(
  "^(\\d{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])T" +
    "(2[0-3]|[01]\\d|\\d):([0-5]\\d|\\d):(6[01]|[0-5]\\d|\\d)\\.(\\d{1,6})Z$",
  "i",
);

/** Return a recorded_at as the hash chain writes it, or null when Python would refuse it. */
export function normalTimestamp(text) {
  const match = STAMP.exec(text);
  if (match === null) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  const valid = year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  if (!valid || second > 59) return null;
  const two = (n) => String(n).padStart(2, "0");
  const micros = match[7].padEnd(6, "0");
  return (
    `${String(year).padStart(4, "0")}-${two(month)}-${two(day)}` +
    `T${two(hour)}:${two(minute)}:${two(second)}.${micros}Z`
  );
}

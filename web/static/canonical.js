// Canonical JSON of an event record, the exact bytes diceledger hashes (docs/verification.md).
//
// Records hold strings, safe integers, booleans, null, arrays and objects whose keys lie in
// the Basic Multilingual Plane. For those, RFC 8785 is: keys sorted, no white space, text
// as UTF-8 with only quote, backslash and control characters escaped. JSON.stringify
// escapes a string exactly as Python's json.dumps(ensure_ascii=False) does, and sorting
// keys by UTF-16 code units equals Python's code point order inside the BMP. Anything
// else is refused with the reason Python's canonical_json gives.

export class CanonicalError extends Error {}

/** A JSON number written with a fraction or exponent: Python reads it as a float. */
export class FloatNumber {
  constructor(source) {
    this.source = source;
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/;

/** Return the canonical JSON text of a value, or throw CanonicalError. */
export function canonicalJson(value) {
  return write(value, "$");
}

function refuse(reason) {
  throw new CanonicalError(`not canonical JSON: ${reason}`);
}

function write(value, path) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isInteger(value)) refuse(`a value of type float at ${path}`);
      if (!Number.isSafeInteger(value)) refuse(`integer out of the safe range at ${path}`);
      return String(value); // -0 prints as 0, as Python's int does
    case "string":
      return quote(value);
    case "object":
      if (value instanceof FloatNumber) refuse(`a value of type float at ${path}`);
      return Array.isArray(value) ? writeArray(value, path) : writeObject(value, path);
    default:
      return refuse(`a value of type ${typeof value} at ${path}`);
  }
}

function quote(text) {
  if (LONE_SURROGATE.test(text)) refuse("a string holds a lone surrogate");
  return JSON.stringify(text);
}

function writeArray(items, path) {
  return `[${items.map((item, index) => write(item, `${path}[${index}]`)).join(",")}]`;
}

function writeObject(object, path) {
  const keys = Object.keys(object).sort();
  const members = keys.map((key) => {
    if (SURROGATE_PAIR.test(key)) refuse(`an object key outside the BMP at ${path}`);
    return `${quote(key)}:${write(object[key], `${path}.${key}`)}`;
  });
  return `{${members.join(",")}}`;
}

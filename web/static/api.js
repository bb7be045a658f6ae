// Talk to this server's JSON API from a page: same origin, the session's HttpOnly cookie,
// and the header that proves the request comes from this site's own scripts (web/auth.py
// refuses a cookie-borne change without it). Errors come back as ApiError with the
// problem's `detail`, a sentence a person can read.

export const PAGE_HEADER = "X-Requested-With";
export const PAGE_HEADER_VALUE = "diceledger";

export class ApiError extends Error {
  constructor(status, detail, type) {
    super(detail);
    this.status = status;
    this.type = type;
  }
}

/** Return a fresh random key (hex): Idempotency-Keys and salts. Works off HTTPS too. */
export function randomKey(bytes = 16) {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(values, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function problemOf(response) {
  let detail = `the server answered ${response.status} ${response.statusText}`;
  let type = null;
  try {
    const body = await response.json();
    if (typeof body.detail === "string") detail = body.detail;
    if (typeof body.type === "string") type = body.type;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, detail, type);
}

/**
 * Call the API. `query` is a list of [name, value] pairs (repeats allowed); `body` is sent
 * as JSON; `idempotencyKey` makes a retry of the same request answer the first result.
 */
export async function call(method, path, { query = [], body, idempotencyKey } = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of query) url.searchParams.append(name, String(value));
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers[PAGE_HEADER] = PAGE_HEADER_VALUE;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
  // A busy session (503 with Retry-After: another roll of the table is being signed) is
  // asked again after the wait it names, a few times: the same request with the same key,
  // so a retried roll is recorded once. Only what is safe to repeat is retried.
  const repeatable = method === "GET" || Boolean(idempotencyKey);
  for (let attempt = 1; ; attempt += 1) {
    let response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: "same-origin",
        cache: "no-store",
      });
    } catch {
      throw new ApiError(0, "the server cannot be reached; check the connection", null);
    }
    if (response.ok) return response.json();
    const wait = retryAfterMs(response);
    if (!repeatable || wait === null || attempt >= BUSY_ATTEMPTS) throw await problemOf(response);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

const BUSY_ATTEMPTS = 5;
const LONGEST_WAIT_MS = 5000;

/** The wait a 503 asks for, in ms; null for any other answer or a wait too long to sit out. */
function retryAfterMs(response) {
  if (response.status !== 503) return null;
  const seconds = Number(response.headers.get("Retry-After"));
  if (!Number.isFinite(seconds) || seconds < 0 || seconds * 1000 > LONGEST_WAIT_MS) return null;
  return seconds * 1000;
}

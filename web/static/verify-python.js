// Verify an export in this browser with diceledger's own Python verify (verify-worker.js):
// the same verdict, first failure and counts as `diceledger verify --file --json`.

let worker = null;
let pending = Promise.resolve();

function ask(message) {
  worker ??= new Worker(new URL("./verify-worker.js", import.meta.url), { type: "module" });
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => (data.failure === undefined ? resolve(data) : reject(new Error(data.failure)));
    worker.onerror = (event) => reject(new Error(event.message || "the verifier's worker failed to load"));
    worker.postMessage(message);
  });
}

/**
 * Verify an export (its bytes, or its text) with what this browser holds of the session:
 * the export's proof document, the checkpoints it kept and the server keys it pinned.
 * Resolve to the report, or to {error} where the command line stops with an error.
 */
export function verifyInBrowser(exported, { proof = null, kept = [], keys = [] } = {}) {
  const exportBytes = typeof exported === "string" ? new TextEncoder().encode(exported) : exported;
  const asked = pending.then(() => ask({ exportBytes, proof, kept, keys }));
  pending = asked.catch(() => {}); // one verify at a time: the worker answers in order
  return asked.then((data) => data.report);
}

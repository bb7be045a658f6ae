// The verify page's worker: diceledger's own Python verify (the code of `diceledger verify
// --file`) run under Pyodide, everything loaded from this page's server. Pyodide and the
// msgspec wheel are installed by .ci/install-pyodide; the Python modules come zipped from
// the server's own package (diceledger-verify.zip). It runs off the page's thread, so the
// page stays responsive while the runtime starts and while a long export is checked.
//
// A message {exportBytes, proof, kept, keys} is answered {report} (the JSON of
// `diceledger verify --file --json`, or {error} where the command stops with an error), or
// {failure} when the verifier itself could not run.

import { loadPyodide } from "./pyodide/pyodide.mjs";

const MSGSPEC_WHEEL = "msgspec-0.23.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl";
const MODULES = "/verifier";
const EXPORT_PATH = "/tmp/export.jsonl";

const here = (path) => new URL(path, import.meta.url).href;
let started = null;

async function start() {
  const pyodide = await loadPyodide({ indexURL: here("./pyodide/") });
  await pyodide.loadPackage(here(`./pyodide/${MSGSPEC_WHEEL}`));
  const response = await fetch(here("./diceledger-verify.zip"));
  if (!response.ok) throw new Error(`the verifier's modules: ${response.status} ${response.statusText}`);
  pyodide.unpackArchive(await response.arrayBuffer(), "zip", { extractDir: MODULES });
  pyodide.runPython(`import sys; sys.path.insert(0, "${MODULES}")`);
  return { pyodide, verifier: pyodide.pyimport("diceledger.web.in_browser") };
}

function fromBase64(text) {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

// WebCrypto answers only asynchronously, so the signatures the verdict may ask about are
// checked first; the verdict then trusts exactly those that held.
async function confirmed(asked) {
  const held = [];
  for (const check of asked) {
    const [key, message, signature] = check.map(fromBase64);
    try {
      const imported = await crypto.subtle.importKey("raw", key, { name: "Ed25519" }, false, ["verify"]);
      if (await crypto.subtle.verify({ name: "Ed25519" }, imported, signature, message)) held.push(check);
    } catch {
      // a key WebCrypto refuses proves nothing: the signature is not confirmed
    }
  }
  return held;
}

self.onmessage = async ({ data }) => {
  let runtime;
  try {
    started ??= start();
    runtime = await started;
  } catch (error) {
    started = null;
    self.postMessage({ failure: `the verifier could not start: ${error?.message ?? error}` });
    return;
  }
  try {
    const { pyodide, verifier } = runtime;
    const request = { proof: data.proof ?? null, kept: data.kept ?? [], keys: data.keys ?? [] };
    request.signatures = await confirmed(JSON.parse(verifier.signatures_to_check(JSON.stringify(request))));
    pyodide.FS.writeFile(EXPORT_PATH, data.exportBytes);
    try {
      const report = JSON.parse(verifier.verify(EXPORT_PATH, JSON.stringify(request)));
      self.postMessage({ report });
    } finally {
      pyodide.FS.unlink(EXPORT_PATH);
    }
  } catch (error) {
    self.postMessage({ failure: String(error?.message ?? error) });
  }
};

// The verify page: read an export from a chosen file, or fetch this session's export from
// the page's own server (data-export-url on the form), and verify it in the browser with
// diceledger's own Python verify (verify-python.js). On a session's page, the checkpoint
// this browser kept of the session and the server key it pinned (witness.js) go with it.

import { verifyInBrowser } from "./verify-python.js";
import { renderMessage, renderReport } from "./verify-view.js";
import { pageWitness } from "./witness.js";

const form = document.getElementById("verify-form");
const fileInput = document.getElementById("export-file");
const proofInput = document.getElementById("proof-file");
const keptInput = document.getElementById("kept-file");
const fetchButton = document.getElementById("verify-served");
const result = document.getElementById("verify-result");
const exportUrl = form.dataset.exportUrl;

async function verifyText(read, held = {}) {
  if (!globalThis.crypto?.subtle) {
    const why = "WebCrypto works only on pages served over HTTPS or from localhost";
    renderMessage(`This browser cannot verify here: ${why}.`, result);
    return;
  }
  form.setAttribute("aria-busy", "true");
  renderMessage("Verifying\u2026 (the first time, this browser loads the verifier: about 13 MB)", result);
  try {
    const given = { ...held, proof: await held.proof, kept: await Promise.all(held.kept ?? []) };
    const report = await verifyInBrowser(await read(), given);
    if (report.error !== undefined) renderMessage(`Could not verify: ${report.error}`, result);
    else renderReport(report, result);
  } catch (error) {
    renderMessage(`Could not verify: ${error.message}`, result);
  } finally {
    form.removeAttribute("aria-busy");
  }
}

async function fetchExport() {
  const url = new URL(exportUrl, location.href);
  if (url.origin !== location.origin) {
    throw new Error("the export must come from this page's own server");
  }
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) {
    let detail = `the server answered ${response.status} ${response.statusText}`;
    try {
      detail = (await response.json()).detail ?? detail; // a problem+json's own sentence
    } catch {
      // not JSON: keep the status line
    }
    throw new Error(detail);
  }
  return new Uint8Array(await response.arrayBuffer());
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const file = fileInput.files[0];
  if (file === undefined) {
    renderMessage("Choose an exported session file (.jsonl) first.", result);
    fileInput.focus();
    return;
  }
  verifyText(async () => new Uint8Array(await file.arrayBuffer()), chosenWith());
});

// What goes with a file chosen by hand, as `verify --file EXPORT --proof PROOF --checkpoint
// KEPT` takes them: the files chosen beside it, and the server key this browser pinned.
function chosenWith() {
  const proof = proofInput.files[0];
  const kept = keptInput.files[0];
  return {
    proof: proof === undefined ? null : proof.text(),
    kept: kept === undefined ? [] : [kept.text()],
    keys: pageWitness()?.held().keys ?? [],
  };
}

if (exportUrl) {
  fetchButton.hidden = false;
  // The export the server serves now is held to what this browser saw of it before; a
  // file chosen by hand may be older than that, and is held only to the files chosen
  // with it.
  fetchButton.addEventListener("click", () => verifyText(fetchExport, pageWitness()?.held()));
}

// The verify page: read an export from a chosen file, or fetch this session's export from
// the page's own server (data-export-url on the form), and verify it in the browser.

import { verifyExport } from "./verify.js";
import { renderMessage, renderReport } from "./verify-view.js";

const form = document.getElementById("verify-form");
const fileInput = document.getElementById("export-file");
const fetchButton = document.getElementById("verify-served");
const result = document.getElementById("verify-result");
const exportUrl = form.dataset.exportUrl;

async function verifyText(read) {
  if (!globalThis.crypto?.subtle) {
    const why = "WebCrypto works only on pages served over HTTPS or from localhost";
    renderMessage(`This browser cannot verify here: ${why}.`, result);
    return;
  }
  form.setAttribute("aria-busy", "true");
  renderMessage("Verifying\u2026", result);
  try {
    renderReport(await verifyExport(await read()), result);
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
  return response.text();
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const file = fileInput.files[0];
  if (file === undefined) {
    renderMessage("Choose an exported session file (.jsonl) first.", result);
    fileInput.focus();
    return;
  }
  verifyText(() => file.text());
});

if (exportUrl) {
  fetchButton.hidden = false;
  fetchButton.addEventListener("click", () => verifyText(fetchExport));
}

// Links made to hand on (invites, sign-in links): shown in a list, selected, with a Copy
// button that says whether it copied, and a QR code drawn in the page for a phone's camera.

import { el } from "./dice-view.js";
import { qrImage } from "./qr.js";

let links = 0;

/** Add the link to ``path`` at the top of ``list``, labelled ``what``, and select it. */
export function linkItem(list, path, what) {
  links += 1;
  const id = `link-${links}`;
  const url = new URL(path, location.origin).href;
  const input = el("input", { id, class: "link", value: url, readonly: "" });
  const copy = el("button", { type: "button", class: "copy", "data-copy": id }, "Copy");
  const done = el("span", { class: "copied", role: "status" });
  const item = el("li", {}, el("label", { for: id }, what), input, el("span", { class: "actions" }, copy, done));
  // To open on a phone at the table: point its camera at the screen.
  const code = qrImage(url, `QR code of the link: ${what}`);
  if (code !== null) item.append(el("details", { class: "qr" }, el("summary", {}, "Show as a QR code"), code));
  list.prepend(item);
  input.focus();
  input.select();
}

/** Copy the link a Copy button belongs to, or select it for the person to copy. */
export async function copyLink(button) {
  const input = document.getElementById(button.dataset.copy);
  const status = button.parentElement.querySelector(".copied");
  try {
    await navigator.clipboard.writeText(input.value);
    status.textContent = "Copied.";
  } catch {
    input.select();
    status.textContent = "Selected: copy it with Ctrl+C (or long-press).";
  }
}

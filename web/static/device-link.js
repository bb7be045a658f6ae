// "Sign in on another device", on the table for every member: a one-time sign-in link for
// this member, to open on their phone or another browser (the way back in after a lost
// cookie, without the GM).

import { ApiError, call, randomKey } from "./api.js";
import { clearError, showError } from "./field-errors.js";
import { copyLink, linkItem } from "./link-list.js";

const section = document.getElementById("devices");
const api = document.getElementById("table").dataset.api;
const button = document.getElementById("new-device-link");

button.addEventListener("click", async () => {
  clearError(button);
  button.disabled = true;
  try {
    const made = await call("POST", `${api}/sign-in-codes`, { idempotencyKey: randomKey(16) });
    const when = new Date(made.expires_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    linkItem(document.getElementById("device-links"), made.sign_in_path, `Open on your other device (once, until ${when})`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showError(button, error.message);
  } finally {
    button.disabled = false;
  }
});

section.addEventListener("click", (event) => {
  const copy = event.target.closest("[data-copy]");
  if (copy !== null) copyLink(copy);
});

// "Sign in on another device", on the table for every member: a one-time sign-in link for
// this member, to open on their phone or another browser (the way back in after a lost
// cookie, without the GM); and the member's own devices, each of which they can sign out.

import { ApiError, call, randomKey } from "./api.js";
import { clearError, showError } from "./field-errors.js";
import { el } from "./dice-view.js";
import { copyLink, linkItem } from "./link-list.js";
import { localTime } from "./times.js";

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

const shown = document.getElementById("show-devices");
const list = document.getElementById("device-list");

async function showDevices() {
  clearError(shown);
  shown.disabled = true;
  try {
    const listed = await call("GET", `${api}/devices`);
    list.replaceChildren(...listed.devices.map((device) => el("li", {},
      `Signed in ${localTime(device.signed_in_at)}${device.this_device ? " (this device)" : ""} `,
      el("button", { type: "button", "data-sign-out": device.device_id },
        device.this_device ? "Sign out here" : "Sign out"))));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showError(shown, error.message);
  } finally {
    shown.disabled = false;
  }
}

shown.addEventListener("click", showDevices);
// Both buttons are served disabled: a tap before this module has loaded would do nothing.
button.disabled = false;
shown.disabled = false;

section.addEventListener("click", async (event) => {
  const copy = event.target.closest("[data-copy]");
  if (copy !== null) copyLink(copy);
  const signOut = event.target.closest("[data-sign-out]");
  if (signOut === null) return;
  clearError(signOut);
  try {
    await call("POST", `${api}/devices/${encodeURIComponent(signOut.dataset.signOut)}/sign-out`,
      { idempotencyKey: randomKey(16) });
    if (signOut.textContent === "Sign out here") window.location.reload();
    else await showDevices();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showError(signOut, error.message);
  }
});

// The GM panel: create invite and sign-in links to copy, revoke members or make them
// co-GMs, rule on disputes, reveal the seed, end the session. Every answer or refusal is
// shown next to the control that asked.

import { ApiError, call, randomKey } from "./api.js";
import { clearError, showError } from "./field-errors.js";
import { el } from "./dice-view.js";
import { localTime } from "./times.js";

const panel = document.getElementById("gm-panel");
const api = panel.dataset.api;
let links = 0;

function linkItem(list, path, what) {
  links += 1;
  const id = `link-${links}`;
  const url = new URL(path, location.origin).href;
  const input = el("input", { id, class: "link", value: url, readonly: "" });
  const copy = el("button", { type: "button", class: "copy", "data-copy": id }, "Copy");
  const done = el("span", { class: "copied", role: "status" });
  list.prepend(el("li", {}, el("label", { for: id }, what), input, el("span", { class: "actions" }, copy, done)));
  input.focus();
  input.select();
}

async function copyLink(button) {
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

async function post(button, path, body) {
  clearError(button);
  button.disabled = true;
  try {
    return await call("POST", path, { body, idempotencyKey: randomKey(16) });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showError(button, error.message);
    return null;
  } finally {
    button.disabled = false;
  }
}

const actions = {
  async invite(button) {
    const made = await post(button, `${api}/invites`);
    if (made) linkItem(document.getElementById("invite-links"), made.join_path, `Invite link (one use, until ${localTime(made.expires_at)})`);
  },
  async "sign-in"(button) {
    const made = await post(button, `${api}/sign-in-codes`);
    if (made) linkItem(document.getElementById("sign-in-links"), made.sign_in_path, `Your sign-in link (one use, until ${localTime(made.expires_at)})`);
  },
  async revoke(button) {
    const name = button.dataset.name;
    const done = await post(button, `${api}/members/${encodeURIComponent(name)}/revoke`);
    if (done) {
      const row = button.closest("tr");
      row.querySelector(".member-tokens").textContent = "0";
      button.textContent = `Revoked (${done.revoked_tokens})`;
    }
  },
  async "co-gm"(button) {
    const name = button.dataset.name;
    const done = await post(button, `${api}/members/${encodeURIComponent(name)}/co-gm`);
    if (done) {
      button.closest("tr").querySelector(".member-role").textContent = "GM";
      button.remove();
    }
  },
  async "reveal-seed"(button) {
    const done = await post(button, `${api}/seed/reveal`);
    if (done) {
      document.getElementById("seed-result").textContent =
        `Epoch ${done.epoch} seed revealed: ${done.seed}. New rolls use epoch ${done.next_epoch}, committed to ${done.next_commitment}.`;
    }
  },
};

panel.addEventListener("click", (event) => {
  const copy = event.target.closest("[data-copy]");
  if (copy !== null) {
    copyLink(copy);
    return;
  }
  const button = event.target.closest("button[data-action]");
  if (button !== null && actions[button.dataset.action]) actions[button.dataset.action](button);
});

panel.addEventListener("submit", async (event) => {
  const form = event.target;
  event.preventDefault();
  const button = form.querySelector('button[type="submit"]');
  if (form.id === "end-form") {
    const confirm = form.elements.namedItem("confirm");
    if (!confirm.checked) {
      showError(confirm, "tick this first: ending cannot be undone");
      return;
    }
    clearError(confirm);
    const done = await post(button, `${api}/end`);
    if (done) {
      document.getElementById("end-result").textContent =
        `The session has ended. Seed of epoch ${done.epoch}: ${done.seed}.`;
      button.remove();
    }
    return;
  }
  if (form.classList.contains("ruling-form")) {
    const roll = form.dataset.roll;
    const outcome = form.elements.namedItem("outcome").value;
    const note = form.elements.namedItem("note").value.trim();
    const done = await post(button, `${api}/rolls/${roll}/ruling`, { outcome, note: note || null });
    if (done) {
      const article = form.closest(".review");
      form.replaceWith(el("p", { class: "ruled", role: "status" }, `Ruled: roll #${roll} ${done.outcome}${done.note ? ` (${done.note})` : ""}.`));
      article.classList.add("ruled-review");
    }
  }
});

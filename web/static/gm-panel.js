// The GM panel: create invite and sign-in links (the GM's own, or any member's) to copy,
// revoke members or make them co-GMs, rule on disputes, reveal the seed, end the session. Every answer or refusal is
// shown next to the control that asked. The live stream keeps the members, the seeds and
// a badge per open dispute current.

import { ApiError, call, randomKey } from "./api.js";
import { clearError, showError } from "./field-errors.js";
import { el } from "./dice-view.js";
import { DisputeBadges } from "./dispute-badges.js";
import { copyLink, linkItem } from "./link-list.js";
import { LiveLog } from "./live-log.js";
import { localTime } from "./times.js";

const panel = document.getElementById("gm-panel");
const api = panel.dataset.api;

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
  // A member's way back in when no device of theirs is signed in: a link to hand them.
  async "sign-in-for"(button) {
    const name = button.dataset.name;
    const made = await post(button, `${api}/members/${encodeURIComponent(name)}/sign-in-codes`);
    if (made) linkItem(document.getElementById("sign-in-links"), made.sign_in_path, `Sign-in link for ${made.name} (one use, until ${localTime(made.expires_at)})`);
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
        `Seed ${done.epoch} revealed: anyone can now check its dice. New rolls use seed ${done.next_epoch}.`;
      live.reload();
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

// -- kept live ------------------------------------------------------------------------------

function epochItem(epoch) {
  const state = epoch.seed ? "revealed: anyone can check its dice" : "secret until revealed";
  const details = el("details", { class: "details" }, el("summary", {}, "Details"),
    el("span", {}, `Epoch ${epoch.epoch}, commitment `, el("code", {}, epoch.commitment),
      ...(epoch.seed ? ["; seed ", el("code", { class: "seed" }, epoch.seed)] : [])));
  return el("li", { "data-epoch": String(epoch.epoch) },
    `Seed ${epoch.epoch}: `, el("span", { class: "seed-state" }, state), " ", details);
}

function showEpochs(epochs) {
  const list = document.getElementById("epochs");
  for (const epoch of epochs) {
    const old = list.querySelector(`li[data-epoch="${epoch.epoch}"]`);
    const fresh = epochItem(epoch);
    if (old === null) list.append(fresh);
    else if (old.querySelector(".seed-state").textContent !== fresh.querySelector(".seed-state").textContent) {
      old.replaceWith(fresh);
    }
  }
}

function memberRow(member) {
  const buttons = [];
  if (member.name !== panel.dataset.viewer) {
    buttons.push(el("button", { type: "button", "data-action": "sign-in-for", "data-name": member.name,
      "aria-label": `Make a sign-in link for ${member.name}` }, "Sign-in link"));
    buttons.push(el("button", { type: "button", "data-action": "revoke", "data-name": member.name,
      "aria-label": `Sign ${member.name} out everywhere` }, "Revoke"));
    if (member.role !== "gm") {
      buttons.push(el("button", { type: "button", "data-action": "co-gm", "data-name": member.name,
        "aria-label": `Make ${member.name} a co-GM` }, "Make co-GM"));
    }
  }
  const error = el("span", { class: "field-error", "data-error-for": member.name, role: "alert" });
  error.hidden = true;
  const row = el("tr", { "data-member": member.name },
    el("th", { scope: "row" }, member.name),
    el("td", { class: "member-role" }, member.role === "gm" ? "GM" : "player"),
    el("td", { class: "member-tokens" }, String(member.live_tokens)),
    el("td", { class: "actions" }, ...buttons, error));
  return row;
}

async function showMembers() {
  const rows = document.querySelector("#members tbody");
  const known = new Set(Array.from(rows.children, (row) => row.dataset.member));
  const { members } = await call("GET", `${api}/members`);
  for (const member of members) {
    if (!known.has(member.name)) rows.append(memberRow(member));
  }
}

const badges = new DisputeBadges(document.getElementById("dispute-badges"), panel.dataset.session);
const live = new LiveLog({
  api,
  banner: document.getElementById("connection-banner"),
  status: document.createElement("p"), // the panel lists no rolls
  onRoll: (view) => badges.seen(view),
  onSession: (session) => {
    showEpochs(session.epochs);
    showMembers();
  },
  onLine: (line) => {
    if (["PlayerJoined", "SeedRevealed", "SeedCommitted", "SessionEnded"].includes(line.event)) live.reload();
  },
});
live.start();

// The table page: wire the roll form, the live log and the roll actions together.

import { renderRoll } from "./dice-view.js";
import { DisputeBadges } from "./dispute-badges.js";
import { LiveLog } from "./live-log.js";
import { RecentRolls } from "./recent-rolls.js";
import { RollActions } from "./roll-actions.js";
import { RollForm } from "./roll-form.js";
import { pageWitness } from "./witness.js";

const table = document.getElementById("table");
const api = table.dataset.api;
const viewer = table.dataset.viewer;
const isGm = table.dataset.gm === "true";
const manual = table.dataset.manual === "true";
let memberNames = new Set(); // an opposed check's side named by no member is an NPC's
const log = document.getElementById("dice-log");
const members = document.getElementById("member-list");
const status = document.getElementById("log-status");

/** Draw a roll, replacing its old drawing, newest first; keep a roll's chosen dice. */
function showRoll(view) {
  form.rollChanged(view);
  badges.seen(view);
  const drawn = renderRoll(view, { viewer, isGm, manual, members: memberNames });
  const old = document.getElementById(drawn.id);
  if (old !== null) {
    if (old.dataset.signature === JSON.stringify(view)) return;
    old.replaceWith(drawn);
  } else {
    const later = Array.from(log.children).find((item) => Number(item.dataset.rollId) < view.roll_id);
    log.insertBefore(drawn, later ?? null);
  }
  drawn.dataset.signature = JSON.stringify(view);
  status.textContent = "";
}

function showSession(session) {
  memberNames = new Set(session.members.map((m) => m.name));
  const names = session.members.map((m) => `${m.name}|${m.role}`).join(",");
  if (members.dataset.names !== names) {
    members.dataset.names = names;
    members.replaceChildren(
      ...session.members.map((m) => {
        const item = document.createElement("li");
        item.textContent = m.name;
        if (m.role === "gm") {
          const tag = document.createElement("span");
          tag.className = "tag";
          tag.textContent = "GM";
          item.append(" ", tag);
        }
        return item;
      }),
    );
  }
  if (session.ended) {
    // Said where everyone sees it, the moment the GM ends it: a Roll button that silently
    // stops working reads as a broken page.
    table.dataset.ended = "true";
    document.getElementById("roll-submit").disabled = true;
    recent.close();
    document.getElementById("ended-notice").hidden = false;
  }
}

function showLine(line) {
  if (line.event === "PlayerJoined" || line.event === "SessionEnded") live.reload();
}

const badges = new DisputeBadges(document.getElementById("dispute-badges"), table.dataset.session);
const form = new RollForm(document.getElementById("roll-form"), {
  api,
  isGm,
  onRolled: showRoll,
  onSent: (body) => recent.remember(body),
});
const recent = new RecentRolls(document.getElementById("recent-rolls"), {
  storageKey: `diceledger.recent.${table.dataset.session}.${viewer}`,
  roll: (body) => form.rollAgain(body),
});
if (table.dataset.ended === "true") recent.close();
// The character panel's saved rolls: one press rolls one.
for (const button of document.querySelectorAll(".saved-roll")) {
  button.addEventListener("click", () => form.rollSaved(button.dataset.saved, button.dataset.kind));
}
new RollActions(log, { api, onUpdated: showRoll });
const live = new LiveLog({
  api,
  banner: document.getElementById("connection-banner"),
  status,
  onRoll: showRoll,
  onSession: showSession,
  onLine: showLine,
  onCheckpoint: (note) => pageWitness()?.observe(note),
});
live.start().catch((error) => {
  status.textContent = `The rolls could not be loaded: ${error.message}`;
});

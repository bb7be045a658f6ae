// What a member does to a roll in the log: press dice to choose them for a reroll, reroll
// or accept, dispute a roll, and (a GM) reveal a blind roll. One listener on the log, so
// rolls drawn later work the same; each answer is handed to `onUpdated` to redraw.

import { ApiError, call, randomKey } from "./api.js";
import { clearError, showError } from "./field-errors.js";
import { el } from "./dice-view.js";

function chosenDice(roll) {
  return Array.from(roll.querySelectorAll('.die-pick[aria-pressed="true"]'), (b) => Number(b.dataset.die));
}

function typedFaces(roll, selector = ".reroll-faces") {
  const input = roll.querySelector(selector);
  if (input === null || input.value.trim() === "") return { input, faces: undefined };
  const parts = input.value.split(/[\s,]+/).filter(Boolean);
  if (!parts.every((p) => /^\d+$/.test(p))) return { input, faces: null };
  return { input, faces: parts.map(Number) };
}

export class RollActions {
  constructor(log, { api, onUpdated }) {
    this.api = api;
    this.onUpdated = onUpdated;
    log.addEventListener("click", (event) => this.clicked(event));
    log.addEventListener("submit", (event) => this.submitted(event));
  }

  clicked(event) {
    const pick = event.target.closest(".die-pick");
    if (pick !== null) {
      const pressed = pick.getAttribute("aria-pressed") === "true";
      pick.setAttribute("aria-pressed", String(!pressed));
      pick.closest(".die").classList.toggle("chosen", !pressed);
      return;
    }
    const button = event.target.closest("button[data-action]");
    if (button === null) return;
    const roll = button.closest(".roll");
    const id = Number(button.dataset.roll);
    const act = {
      reroll: () => this.reroll(roll, id, button),
      accept: () => this.send(button, `${this.api}/rolls/${id}/accept`),
      "roll-side": () => this.rollSide(roll, id, button),
      reveal: () => this.send(button, `${this.api}/rolls/${id}/reveal`),
      dispute: () => this.toggleDispute(roll, id, button),
      "cancel-dispute": () => this.closeDispute(roll),
      replace: () => this.rollAgain(id, button),
    }[button.dataset.action];
    if (act !== undefined) act();
  }

  async send(button, path, body, idempotent = false) {
    clearError(button);
    button.disabled = true;
    try {
      const options = idempotent ? { body, idempotencyKey: randomKey(16) } : { body };
      this.onUpdated(await call("POST", path, options));
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      showError(button, error.message);
      return false;
    } finally {
      button.disabled = false;
    }
  }

  /** Roll a voided roll again (the API's `replaces`), then redraw the old one: it now
   * names the roll that replaced it. */
  async rollAgain(id, button) {
    const body = JSON.parse(button.dataset.request);
    if (body.salt === "") body.salt = randomKey(16); // a player's own, fresh per roll
    if (await this.send(button, `${this.api}/rolls`, body, true)) {
      this.onUpdated(await call("GET", `${this.api}/rolls/${id}`));
    }
  }

  reroll(roll, id, button) {
    const dice = chosenDice(roll);
    if (dice.length === 0) {
      showError(button, "press the dice to reroll first");
      return;
    }
    const { input, faces } = typedFaces(roll);
    if (faces === null) {
      showError(input, "typed-in dice are whole numbers separated by commas");
      return;
    }
    const body = faces === undefined ? { dice } : { dice, faces };
    this.send(button, `${this.api}/rolls/${id}/reroll`, body, true);
  }

  /** Roll one's own side of an opposed check, for the round shown (a stale page is refused). */
  rollSide(roll, id, button) {
    const { input, faces } = typedFaces(roll, ".side-faces");
    if (faces === null) {
      showError(input, "typed-in dice are whole numbers separated by commas");
      return;
    }
    const round = Number(button.closest(".reroll-controls").dataset.round);
    const body = faces === undefined ? { turn_round: round } : { turn_round: round, faces };
    this.send(button, `${this.api}/rolls/${id}/side`, body, true);
  }

  toggleDispute(roll, id, button) {
    if (this.closeDispute(roll)) return;
    const input = `dispute-reason-${id}`;
    const form = el(
      "form",
      { class: "dispute-form", "data-roll": id, novalidate: "" },
      el("p", {},
        el("label", { for: input }, `Why do you dispute roll #${id}?`),
        el("input", { id: input, name: "reason", maxlength: "500", required: "" })),
      el("p", { class: "actions" },
        el("button", { type: "submit", id: `send-dispute-${id}` }, "Send the dispute"),
        el("button", { type: "button", "data-action": "cancel-dispute", "data-roll": id }, "Cancel")),
    );
    button.setAttribute("aria-expanded", "true");
    button.closest(".roll-actions").after(form);
    form.querySelector("input").focus();
  }

  closeDispute(roll) {
    const form = roll.querySelector(".dispute-form");
    if (form === null) return false;
    form.remove();
    const toggle = roll.querySelector('[data-action="dispute"]');
    if (toggle !== null) {
      toggle.setAttribute("aria-expanded", "false");
      toggle.focus();
    }
    return true;
  }

  async submitted(event) {
    const form = event.target.closest(".dispute-form");
    if (form === null) return;
    event.preventDefault();
    const id = Number(form.dataset.roll);
    const input = form.elements.namedItem("reason");
    if (input.value.trim() === "") {
      showError(input, "say why, in a few words");
      return;
    }
    const button = form.querySelector('button[type="submit"]');
    clearError(input);
    button.disabled = true;
    try {
      await call("POST", `${this.api}/rolls/${id}/dispute`, {
        body: { reason: input.value.trim() },
        idempotencyKey: randomKey(16),
      });
      this.onUpdated(await call("GET", `${this.api}/rolls/${id}`));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      showError(input, error.message);
    } finally {
      button.disabled = false;
    }
  }
}

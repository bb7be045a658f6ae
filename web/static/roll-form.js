// The roll form: show the fields of the chosen kind, the advantage score and the exact
// odds as the roll is written, and send it. A refusal is shown next to the field it
// concerns (or next to the Roll button when no field is to blame).

import { ApiError, call, randomKey } from "./api.js";
import { clearError, clearErrors, showError } from "./field-errors.js";
import { OddsPreview } from "./odds-preview.js";
import { FormProblem, missingFields, readRoll } from "./roll-request.js";
import { describeScore, readSources, setUpSources } from "./sources.js";

// Which field a refusal is about, read from its words; the first match wins.
const BLAME = [
  [/typed-in|faces|physical/i, "faces"],
  [/opponent|'vs'|other side|'s side\b|'s MODs\b/i, "vs_expression"], // "bob's side rolls ..."
  [/\bNPC\b/, "vs_name"],
  [/\bdc\b|target/i, "target"],
  [/against/i, "against"],
  [/reroll|allowance/i, "reroll"],
  [/label/i, "label"],
  [/blind/i, "blind"],
  [/someone else|npc|\bfor\b/i, "for"],
  [/advantage|disadvantage|median/i, "median"],
  [/eased|hindered/i, "eased"],
  [/expression|notation|dice|d\d+|die/i, "expression"],
];

function controlFor(form, error, submit) {
  if (error.type === "/problems/dice-notation") return form.elements.namedItem("expression");
  const named = /^([a-z_]+)(\.\d+)?(\.[a-z_]+)?: /.exec(error.message);
  if (named !== null) {
    const control = form.elements.namedItem(named[1] === "vs" ? "vs_expression" : named[1]);
    if (control instanceof Element) return control;
  }
  for (const [pattern, name] of BLAME) {
    const control = form.elements.namedItem(name);
    if (pattern.test(error.message) && control instanceof Element && control.offsetParent !== null) {
      return control;
    }
  }
  return submit;
}

export class RollForm {
  constructor(form, { api, isGm, onRolled, onSent = () => {} }) {
    this.form = form;
    this.api = api;
    this.isGm = isGm;
    this.onRolled = onRolled;
    this.onSent = onSent; // told each request the form sent and the server rolled
    this.submit = form.querySelector("#roll-submit");
    this.score = form.querySelector("#advantage-score");
    this.odds = new OddsPreview(
      form.querySelector("#roll-odds"),
      form.elements.namedItem("expression"),
      form.elements.namedItem("vs_expression"),
    );
    setUpSources(form, document.getElementById("source-row"), () => this.changed());
    form.addEventListener("input", (event) => {
      // A field being fixed drops its error at once.
      if (event.target.getAttribute?.("aria-invalid") === "true") clearError(event.target);
      this.changed();
    });
    form.addEventListener("change", () => this.changed());
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
    this.changed();
  }

  kind() {
    return this.form.elements.namedItem("kind").value;
  }

  showKind() {
    const kind = this.kind();
    for (const part of this.form.querySelectorAll(".for-kinds")) {
      part.hidden = !part.dataset.kinds.split(" ").includes(kind);
    }
  }

  changed() {
    this.showKind();
    const median = this.form.elements.namedItem("median").checked;
    this.score.textContent = describeScore(
      readSources(this.form, "adv"),
      readSources(this.form, "dis"),
      median,
    );
    let roll;
    try {
      roll = readRoll(this.form, { isGm: this.isGm });
    } catch (problem) {
      if (problem instanceof FormProblem) return;
      throw problem;
    }
    this.odds.update(roll.kind, roll.odds);
  }

  /** After a roll, start the next one from the kind's defaults: a label, advantage sources,
   * typed-in faces, "blind" or "roll for" left from the last roll must not ride along on the
   * next. Only the kind stays. */
  reset() {
    const kind = this.kind();
    this.form.reset();
    this.form.elements.namedItem("kind").value = kind;
    for (const row of this.form.querySelectorAll(".source-row")) row.remove();
    const details = this.form.querySelector("details");
    if (details !== null) details.open = false;
    this.changed();
  }

  /** Say what was rolled right under the button, with a link to the roll in the log. */
  showResult(view) {
    const result = this.form.querySelector("#roll-result");
    result.dataset.rollId = String(view.roll_id);
    const link = document.createElement("a");
    link.href = `#roll-${view.roll_id}`;
    link.textContent = `Rolled #${view.roll_id}`;
    let words = `: total ${view.total}`;
    if (view.status === "awaiting_rerolls") words += ", waiting for your rerolls or acceptance";
    else if (view.kind === "opposed") words += `, ${view.winner} wins`;
    else if (view.success === true || view.success === false) {
      words += ` vs ${view.target}, ${view.success ? "success" : "failure"}`;
    }
    result.replaceChildren(link, `${words}.`);
  }

  /** Keep the line under the button current: the roll it names may resolve later (rerolled,
   * accepted) and must not still say it waits. */
  rollChanged(view) {
    const result = this.form.querySelector("#roll-result");
    if (result.dataset.rollId === String(view.roll_id)) this.showResult(view);
  }

  /** Show each problem beside its field (opening "More" when one is in it) and move the
   * focus to the first: an error off the screen reads as a Roll button that did nothing. */
  showProblems(problems) {
    const details = this.form.querySelector("details");
    for (const { control, message } of problems) {
      if (details !== null && details.contains(control)) details.open = true;
      showError(control, message);
    }
    problems[0].control.focus();
  }

  /** Roll a saved roll of the player's character at once; a check takes the target typed
   * in the form. The server reads its expression and the sheet's values. */
  async rollSaved(name, kind) {
    clearErrors(this.form);
    const body = { kind, saved: name };
    if (kind === "check") {
      const target = this.form.elements.namedItem("target");
      if (target.value.trim() === "") {
        this.showProblems([{ control: target, message: `${name} is a check: give its target first` }]);
        return;
      }
      body.target = Number(target.value);
    }
    await this.post(body, () => this.submit);
  }

  /** Roll a request again as it is, in one press (a recent roll's button). */
  async rollAgain(body) {
    clearErrors(this.form);
    await this.post({ ...body }, () => this.submit);
  }

  /** Send one roll: a fresh Idempotency-Key, and a player's own fresh salt, so nobody, the
   * server included, could foresee its dice (docs/verification.md). Show the roll, or the
   * refusal beside the control ``blame`` names for it; ``before`` runs once it is rolled,
   * before it is shown. Return whether it was rolled. */
  async post(body, blame, before = () => {}) {
    if (!this.isGm) body.salt = randomKey(16);
    this.submit.disabled = true;
    this.form.setAttribute("aria-busy", "true");
    try {
      const view = await call("POST", `${this.api}/rolls`, { body, idempotencyKey: randomKey(16) });
      before();
      this.onRolled(view);
      this.showResult(view);
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.showProblems([{ control: blame(error), message: error.message }]);
      return false;
    } finally {
      this.submit.disabled = this.form.closest("[data-ended=true]") !== null; // ended meanwhile
      this.form.removeAttribute("aria-busy");
    }
  }

  async send() {
    clearErrors(this.form);
    const missing = missingFields(this.form);
    let roll;
    try {
      roll = readRoll(this.form, { isGm: this.isGm });
    } catch (problem) {
      if (!(problem instanceof FormProblem)) throw problem;
      missing.push(problem);
    }
    if (missing.length) {
      this.showProblems(missing);
      return;
    }
    const sent = { ...roll.body };
    const rolled = await this.post(roll.body, (error) => controlFor(this.form, error, this.submit), () =>
      this.reset(),
    );
    if (rolled) this.onSent(sent);
  }
}

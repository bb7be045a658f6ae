// Show the exact odds of the roll being written, before it is rolled ("needs 12+: 45.0%"),
// from GET /api/v1/odds. The same answer validates the notation as it is typed: a refusal
// is shown next to the dice field.

import { call } from "./api.js";
import { clearError, showError } from "./field-errors.js";

const WAIT_MS = 250;

function percent(probability) {
  return `${(probability.float * 100).toFixed(1)}%`;
}

/** Say which reroll policy the figures assume, when a side may reroll. */
function assumes(answer) {
  return answer.reroll_policy ? ` Assumes ${answer.reroll_policy}.` : "";
}

/** Return the odds in words. */
export function describeOdds(kind, answer) {
  if (kind === "opposed") {
    // Win and lose are overall (ties are rolled again until someone wins), so they add up
    // to 100%; the tie is one round's. With rerolls, a later round differs from the first.
    const round = /reroll/.test(`${answer.roll} ${answer.versus}`) ? "the first round" : "a round";
    return `Chance to win: ${percent(answer.win)}, to lose: ${percent(answer.lose)} ` +
      `(a tie is rolled again; ${round} ties ${percent(answer.tie)}).` + assumes(answer);
  }
  const mean = `average ${answer.mean.float.toFixed(2)}`;
  if (answer.target === null || answer.success === null) {
    return kind === "check" || kind === "save"
      ? `Give a target or a DC to see the chance of success (${mean}).`
      : `Exact odds: ${mean} (${answer.roll}).` + assumes(answer);
  }
  if (answer.best_success) {
    // Two figures, each with what it assumes: the rules' default policy and the best play.
    return `Needs ${answer.target}+: ${percent(answer.success)} if rerolled by the default ` +
      `policy (the lowest die while below its average); ${percent(answer.best_success)} ` +
      `rerolling any failing die as well as possible (${answer.roll}; ${mean}).`;
  }
  return `Needs ${answer.target}+: ${percent(answer.success)} (${answer.roll}; ${mean}).` +
    assumes(answer);
}

export class OddsPreview {
  constructor(output, expressionInput, opponentInput) {
    this.output = output;
    this.expressionInput = expressionInput;
    this.opponentInput = opponentInput;
    this.timer = null;
    this.asked = 0;
    // The page brings the answer for the form as it starts (query and answer), so the line
    // is drawn at once instead of moving what is below it a moment after the first paint.
    this.first = output.dataset.firstOdds ? JSON.parse(output.dataset.firstOdds) : null;
    this.erred = null; // the field this preview put an error beside, if any
  }

  /** Take back the error this preview showed: one the Roll button's answer showed stays. */
  clearOwnError() {
    if (this.erred !== null) clearError(this.erred);
    this.erred = null;
  }

  /** Ask again after a short pause in typing; only the latest question's answer shows. */
  update(kind, query) {
    clearTimeout(this.timer);
    if (this.first !== null && new URLSearchParams(query).toString() === this.first.query) {
      this.asked += 1; // an answer still on its way is for another question now
      this.clearOwnError();
      this.output.textContent = describeOdds(kind, this.first.answer);
      return;
    }
    this.timer = setTimeout(() => this.ask(kind, query), WAIT_MS);
  }

  async ask(kind, query) {
    const number = ++this.asked;
    const expression = query.find(([name]) => name === "expression")[1];
    if (expression === "") {
      this.output.textContent = "";
      return;
    }
    // @STR stands for a value of a character's sheet, which only the session reads: the
    // odds cannot be worked out here, and the roll itself is checked when sent.
    const versus = query.find(([name]) => name === "vs");
    if (expression.includes("@") || (versus !== undefined && String(versus[1]).includes("@"))) {
      this.clearOwnError();
      this.output.textContent = "No odds here for a roll that reads the sheet (@): its values are read as it is rolled.";
      return;
    }
    try {
      const answer = await call("GET", "/api/v1/odds", { query });
      if (number !== this.asked) return;
      this.clearOwnError();
      this.output.textContent = describeOdds(kind, answer);
    } catch (error) {
      if (number !== this.asked) return;
      this.output.textContent = "";
      const aboutOpponent = kind === "opposed" && /vs|versus|other side/i.test(error.message);
      this.erred = aboutOpponent ? this.opponentInput : this.expressionInput;
      showError(this.erred, error.message);
    }
  }
}

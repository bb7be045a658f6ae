// Read the roll form into the API's roll body and the matching odds query. Only the
// fields that belong to the chosen kind are read, so a hidden field never sneaks in.

import { readSources } from "./sources.js";

const CHECKS = new Set(["check", "save", "opposed"]);

export class FormProblem extends Error {
  constructor(control, message) {
    super(message);
    this.control = control;
  }
}

function field(form, name) {
  return form.elements.namedItem(name);
}

function text(form, name) {
  const control = field(form, name);
  return control === null ? "" : control.value.trim();
}

function checked(form, name) {
  const control = field(form, name);
  return control !== null && control.checked;
}

function integer(form, name) {
  const value = text(form, name);
  if (value === "") return null;
  const number = Number(value);
  if (!Number.isInteger(number)) throw new FormProblem(field(form, name), "give a whole number");
  return number;
}

function faces(form) {
  const value = text(form, "faces");
  if (value === "") return null;
  const parts = value.split(/[\s,]+/).filter(Boolean);
  if (!parts.every((part) => /^\d+$/.test(part))) {
    throw new FormProblem(field(form, "faces"), "typed-in dice are whole numbers separated by commas");
  }
  return parts.map(Number);
}

function sources(form, kind) {
  return readSources(form, kind).map(({ amount, label }) => ({ amount, label }));
}

/** Return {kind, body, odds}: the roll body to POST and the odds query ([name, value]s). */
/** Return a problem for each field the roll cannot go without, in the form's order: all of
 * them are shown at once, rather than one per press of Roll. */
export function missingFields(form) {
  const kind = text(form, "kind");
  const missing = [];
  if (!text(form, "expression")) missing.push(new FormProblem(field(form, "expression"), "give the dice to roll, like 1d20+3"));
  if ((kind === "check" || kind === "save") && !text(form, "target") && !text(form, "dc")) {
    missing.push(new FormProblem(field(form, "target"), `a ${kind} needs a target number (or a DC, under More)`));
  }
  if (kind === "opposed" && !text(form, "vs_name")) {
    missing.push(new FormProblem(field(form, "vs_name"), "name the opponent: a player, or an NPC if you are the GM"));
  }
  return missing;
}

export function readRoll(form, { isGm }) {
  const kind = text(form, "kind");
  const check = CHECKS.has(kind);
  const body = { kind, expression: text(form, "expression") };
  const odds = [["expression", body.expression]];
  if (kind === "check" || kind === "save") {
    const target = integer(form, "target");
    const dc = integer(form, "dc");
    if (target !== null) {
      body.target = target;
      odds.push(["target", target]);
    }
    if (dc !== null) {
      body.dc = dc;
      odds.push(["dc", dc]);
      if (text(form, "dc_label")) body.dc_label = text(form, "dc_label");
    }
  }
  if (kind === "save" && text(form, "against")) body.against = text(form, "against");
  if (kind === "opposed") {
    body.vs = { name: text(form, "vs_name"), expression: text(form, "vs_expression") };
    if (checked(form, "vs_rolls_own")) body.vs.rolls_own_dice = true;
    odds.push(["vs", body.vs.expression]);
  }
  if (check) {
    body.adv = sources(form, "adv");
    body.dis = sources(form, "dis");
    body.median = checked(form, "median");
    for (const s of body.adv) odds.push(["adv", s.amount]);
    for (const s of body.dis) odds.push(["dis", s.amount]);
    if (body.median) odds.push(["median", "true"]);
  }
  body.eased = sources(form, "eased");
  body.hindered = sources(form, "hindered");
  for (const s of body.eased) odds.push(["eased", s.amount]);
  for (const s of body.hindered) odds.push(["hindered", s.amount]);
  body.reroll = integer(form, "reroll") ?? 0;
  body.reroll_scope = text(form, "reroll_scope") || "effect";
  const covered = body.reroll_scope === "effect" || kind === "damage";
  if (body.reroll > 0 && covered) odds.push(["reroll", body.reroll]);
  if (text(form, "action")) body.action = text(form, "action");
  if (kind === "opposed") {
    // The other side's own allowance, for this check alone (R11).
    body.vs.reroll = integer(form, "vs_reroll") ?? 0;
    if (body.vs.reroll > 0) odds.push(["vs_reroll", body.vs.reroll]);
  }
  if (text(form, "label")) body.label = text(form, "label");
  const typed = faces(form);
  if (typed !== null) body.faces = typed;
  if (checked(form, "no_explode")) {
    body.no_explode = true;
    odds.push(["no_explode", "true"]);
  }
  const mode = text(form, "mode");
  if (mode && mode !== "public") body.mode = mode;
  if (isGm) {
    if (text(form, "for")) body.for = text(form, "for");
  }
  return { kind, body, odds };
}

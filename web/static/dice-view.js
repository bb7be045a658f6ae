// Draw one roll of the log from its JSON view (GET .../rolls/{id}), with DOM text only:
// nothing a member typed can become markup. Every die is shown; a counted die is bold
// (<strong>), any other is struck through (<del>) and says why in words, so neither
// colour nor styling is needed to tell them apart. An explosion chain follows its die,
// stepping down the ladder. The markup is the one table.css documents.

const MINUS = "\u2212";
// The rules' names (R11 speaks of damage and effect rolls); an opposed check says so.
const KIND_NAMES = { effect: "effect", damage: "damage", check: "check", save: "save", opposed: "opposed check" };

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

function signed(number) {
  return number < 0 ? `${MINUS}${-number}` : `+${number}`;
}

function labelled(source) {
  return source.label ? `${source.amount} (${source.label})` : String(source.amount);
}

/**
 * Order dice as a person reads them: each die, then its explosion chain in steps, then
 * the die that replaced it by a reroll (with that die's own chain), and so on.
 */
export function chains(dice) {
  const ordered = [];
  const follow = (die) => {
    ordered.push(die);
    const chain = dice
      .filter((d) => d.reason === "explosion" && d.parent === die.index)
      .sort((a, b) => a.step - b.step);
    ordered.push(...chain);
    for (const next of dice) {
      if (next.reason === "reroll" && next.parent === die.index) follow(next);
    }
  };
  for (const die of dice) if (die.reason === "initial") follow(die);
  return ordered;
}

function note(die, byIndex) {
  const notes = [];
  if (die.reason === "explosion") {
    const from = byIndex.get(die.parent);
    const size = from ? `d${from.sides}` : "its die";
    notes.push(die.step === 1 ? `exploded from ${size} #${die.parent}` : `explosion step ${die.step} of #${die.parent}`);
  }
  if (die.reason === "reroll") notes.push(`reroll of #${die.parent}`);
  if (die.discarded) notes.push("rerolled away");
  else if (!die.counted) notes.push("not counted");
  // In an opposed check each side types in its own dice: say whose hands they came from.
  if (die.source === "manual") notes.push(die.side_name && die.typed_by ? `typed in by ${die.typed_by}` : "typed in");
  return notes.join(", ");
}

function dieItem(die, byIndex, pickable) {
  const face = die.counted
    ? el("strong", { class: "face" }, String(die.face))
    : el("del", { class: "face" }, String(die.face));
  const classes = ["die", die.counted ? "counted" : "discarded"];
  if (die.reason === "explosion") classes.push("explosion");
  if (die.reason === "reroll") classes.push("reroll");
  if (die.source === "manual") classes.push("manual");
  const words = note(die, byIndex);
  const content = [`d${die.sides} `, face];
  if (words) content.push(" ", el("span", { class: "die-note" }, words));
  const item = el("li", { class: classes.join(" "), "data-index": die.index });
  if (pickable) {
    const label = `Reroll die #${die.index}, a d${die.sides} showing ${die.face}`;
    item.append(
      el("button", { type: "button", class: "die-pick", "aria-pressed": "false", "data-die": die.index, "aria-label": label }, ...content),
    );
  } else {
    item.append(...content);
  }
  return item;
}

function diceList(dice, pickable, label) {
  const byIndex = new Map(dice.map((d) => [d.index, d]));
  const list = el("ul", { class: "dice", "aria-label": label });
  for (const die of chains(dice)) {
    const canPick = pickable && !die.discarded && die.reason !== "explosion";
    list.append(dieItem(die, byIndex, canPick));
  }
  return list;
}

function head(view) {
  const kind = KIND_NAMES[view.kind] ?? view.kind;
  const parts = [el("span", { class: "roll-number" }, `#${view.roll_id}`), " ", el("span", { class: "roller" }, view.for), ` ${kind}`];
  if (view.label) parts.push(` (${view.label})`);
  parts.push(" ", el("code", {}, view.expression));
  if (view.kind === "opposed") parts.push(` vs ${view.contestants[1].name} `, el("code", {}, view.contestants[1].expression));
  if (view.target !== null && view.target !== undefined) {
    let target = ` vs ${view.target}`;
    if (view.dc_modifier !== null) target += ` (DC 10${signed(view.dc_modifier)}${view.dc_label ? ` ${view.dc_label}` : ""})`;
    parts.push(target);
  }
  if (view.against) parts.push(` against ${view.against}`);
  const tags = [];
  if (view.roller !== view.for) tags.push(`rolled by ${view.roller}`);
  if (view.mode && view.mode !== "public") tags.push(view.hidden ? MODE_TAGS[view.mode] : `${view.mode}, revealed`);
  if (view.manual) tags.push("typed-in dice");
  if (!view.exploding) tags.push("no explosions");
  if (view.median) tags.push("median");
  for (const tag of tags) parts.push(" ", el("span", { class: "tag" }, tag));
  return el("p", { class: "roll-head" }, ...parts);
}

function sourcesLine(side) {
  const words = [];
  if (side.advantage?.length) words.push(`Advantage ${side.advantage.map(labelled).join(", ")}`);
  if (side.disadvantage?.length) words.push(`Disadvantage ${side.disadvantage.map(labelled).join(", ")}`);
  if (!words.length) return null;
  return `${words.join("; ")}: score ${side.score > 0 ? "+" : ""}${side.score}.`;
}

/** Return the total taken apart: "1d20 (17) + 3[STR] + eased 2 (bless) = 22". */
export function sumText(side, total) {
  let text = "";
  side.parts.forEach((part, i) => {
    const shown = part.kind === "dice" ? `${part.text} (${part.value})` : part.text;
    if (i === 0) text = part.sign < 0 ? `${MINUS}${shown}` : shown;
    else text += ` ${part.sign < 0 ? MINUS : "+"} ${shown}`;
  });
  for (const source of side.eased ?? []) text += ` + eased ${labelled(source)}`;
  for (const source of side.hindered ?? []) text += ` ${MINUS} hindered ${labelled(source)}`;
  for (const divisor of side.divisors ?? []) text = `(${text}) / ${divisor}`;
  return `${text} = ${total}`;
}

function verdict(view) {
  if (view.target === null || view.target === undefined) return "";
  if (view.status !== "resolved") return ` vs ${view.target} (not decided yet)`;
  return ` vs ${view.target}: `;
}

function singleBody(view, pickable) {
  const nodes = [];
  const sources = sourcesLine(view);
  if (sources) nodes.push(el("p", { class: "roll-sources" }, sources));
  nodes.push(diceList(view.dice, pickable, `dice of roll ${view.roll_id}`));
  const total = el("p", { class: "roll-total" }, sumText(view, view.total) + verdict(view));
  if (view.status === "resolved" && view.success !== null && view.success !== undefined) {
    total.append(el("strong", { class: view.success ? "outcome success" : "outcome failure" }, view.success ? "success" : "failure"));
    if (view.margin !== null) total.append(` (margin ${signed(view.margin)})`);
  }
  nodes.push(total);
  return nodes;
}

/** An opposed check's sides, round by round; the dice of the side on turn are pressable
 * in its current round when the viewer decides that side (`pickable`). */
function opposedBody(view, pickable) {
  const nodes = [];
  const turn = view.contestants.findIndex((side) => side.name === view.waiting_for);
  const [mine, theirs] = view.contestants;
  for (const side of view.contestants) {
    const sources = sourcesLine(side);
    if (sources) nodes.push(el("p", { class: "roll-sources" }, `${side.name}: ${sources}`));
  }
  for (let round = 1; round <= view.rounds; round += 1) {
    const [a, b] = view.round_totals[round - 1];
    const tie = round < view.rounds;
    const section = el("div", { class: "round" });
    const theirTotal = b === null ? "yet to roll" : b;
    section.append(el("p", { class: "round-head" }, `Round ${round}: ${mine.name} ${a}, ${theirs.name} ${theirTotal}`, tie ? el("strong", { class: "tag" }, " tie: both roll again") : null));
    view.contestants.forEach((side, number) => {
      const dice = view.dice.filter((d) => d.round === round && d.side === number);
      const mine = pickable && round === view.rounds && number === turn;
      if (dice.length > 0) section.append(diceList(dice, mine, `${side.name}'s dice in round ${round}`));
    });
    nodes.push(section);
  }
  for (const side of view.contestants) {
    const sum = side.total === null ? "yet to roll their own dice" : sumText(side, side.total);
    nodes.push(el("p", { class: "roll-total" }, `${side.name}: ${sum}`));
  }
  if (view.status === "resolved") {
    const after = view.rounds > 1 ? ` after ${view.rounds} rounds` : "";
    nodes.push(el("p", { class: "roll-total" }, el("strong", { class: "outcome" }, `${view.winner} wins${after}`)));
  }
  return nodes;
}

function button(action, rollId, words) {
  const attributes = { type: "button", id: `${action}-${rollId}`, "data-action": action, "data-roll": rollId };
  return el("button", attributes, words);
}

/** The other member's own dice of an opposed check: theirs to roll, typed in or by the server. */
function sideControls(view, viewer, manual) {
  const who = view.waiting_for;
  if (who !== viewer) {
    return el("p", { class: "awaiting" }, `Waiting for ${who} to roll their own dice (round ${view.rounds}).`);
  }
  const box = el("div", { class: "reroll-controls", "data-roll": view.roll_id, "data-round": view.rounds });
  box.append(el("p", { class: "awaiting" }, `Your turn: roll your dice for round ${view.rounds} (${view.contestants[1].expression}).`));
  if (manual) {
    const id = `side-faces-${view.roll_id}`;
    box.append(
      el("p", {},
        el("label", { for: id }, "Your physical dice, typed in (leave empty for the server's dice)"),
        el("input", { id, class: "side-faces", inputmode: "numeric", autocomplete: "off", placeholder: "14" })),
    );
  }
  box.append(el("p", { class: "actions" }, button("roll-side", view.roll_id, "Roll my dice")));
  return box;
}

function rerollControls(view, canDecide, who) {
  if (!canDecide) {
    const whose = view.kind === "opposed" ? `${who}'s side` : who;
    return el("p", { class: "awaiting" }, `Waiting for ${whose} to reroll or accept (${view.rerolls_left} reroll${view.rerolls_left === 1 ? "" : "s"} left).`);
  }
  const id = `reroll-faces-${view.roll_id}`;
  const box = el("div", { class: "reroll-controls", "data-roll": view.roll_id });
  box.append(
    el("p", { class: "awaiting" }, `Your decision: ${view.rerolls_left} reroll${view.rerolls_left === 1 ? "" : "s"} left. Press the dice to reroll, then reroll them, or accept the roll as it stands.`),
  );
  if (view.manual) {
    box.append(
      el("p", {},
        el("label", { for: id }, "Typed-in faces for the new dice"),
        el("input", { id, class: "reroll-faces", inputmode: "numeric", autocomplete: "off", placeholder: "5" })),
    );
  }
  box.append(
    el("p", { class: "actions" },
      button("reroll", view.roll_id, "Reroll chosen dice"),
      button("accept", view.roll_id, "Accept as it stands")),
  );
  return box;
}

function actions(view, { isGm, viewer }) {
  const bar = el("p", { class: "actions roll-actions" });
  if (!view.voided && !view.open_dispute) {
    const dispute = button("dispute", view.roll_id, `Dispute #${view.roll_id}`);
    dispute.setAttribute("aria-expanded", "false");
    bar.append(dispute);
  }
  // Who may reveal it is the server's to say (a self roll its roller, any other a GM).
  if (view.may_reveal) {
    bar.append(button("reveal", view.roll_id, `Reveal #${view.roll_id} to everyone`));
  }
  if (view.voided && view.replaced_by === null && view.kind !== "opposed" && view.roller === viewer) {
    const again = button("replace", view.roll_id, `Roll again, replacing #${view.roll_id}`);
    again.dataset.request = JSON.stringify(againRequest(view, isGm));
    bar.append(again);
  }
  return bar;
}

/** The request that rolls a voided roll again: the same one (the rules allow no other,
 * modifiers aside); a player's carries a salt of their own browser (roll-actions.js adds it). */
function againRequest(view, isGm) {
  const body = { kind: view.kind, expression: view.expression, replaces: view.roll_id };
  if (view.dc_modifier !== null) body.dc = view.dc_modifier;
  else if (view.target !== null) body.target = view.target;
  if (view.dc_label) body.dc_label = view.dc_label;
  if (view.against) body.against = view.against;
  if (view.for !== view.roller) body.for = view.for;
  if (view.label) body.label = view.label;
  if (!isGm) body.salt = "";
  return body;
}

// What a roll not yet revealed says to a viewer who sees it, by its mode.
const MODE_TAGS = {
  gm: "private: the roller and the GMs",
  blind: "blind: the GMs only",
  self: "the roller's eyes only",
};

/** Return the <li> of one roll as this viewer sees it. */
export function renderRoll(view, { viewer, isGm, manual = false, members = new Set() }) {
  const item = el("li", { class: "roll", id: `roll-${view.roll_id}`, "data-roll-id": view.roll_id, "data-status": view.status });
  if (view.status === "hidden") {
    item.classList.add("hidden-roll");
    item.append(el("p", { class: "roll-head" }, el("span", { class: "roll-number" }, `#${view.roll_id}`), ` ${view.text}`));
    return item;
  }
  const awaiting = view.status === "awaiting_rerolls";
  // Who decides now: an opposed check's side on turn (an NPC's: any GM), else the roller.
  const who = view.kind === "opposed" ? view.waiting_for : view.roller;
  const npc = view.kind === "opposed" && !members.has(who);
  const canDecide = awaiting && (who === viewer || (npc && isGm));
  item.append(head(view));
  item.append(...(view.kind === "opposed" ? opposedBody(view, canDecide) : singleBody(view, canDecide)));
  if (awaiting && view.waiting_for_dice) item.append(sideControls(view, viewer, manual));
  else if (awaiting) item.append(rerollControls(view, canDecide, who));
  if (view.voided) item.classList.add("voided-roll");
  const note = view.ruling && view.ruling.note ? ` The GM's note: ${view.ruling.note}` : "";
  if (view.voided) {
    item.append(el("p", { class: "tag voided" }, `Voided by the GM after a dispute: left out of the statistics.${note}`));
  } else if (view.open_dispute) {
    item.append(el("p", { class: "tag disputed" }, "Disputed: waiting for the GM's ruling."));
  } else if (view.ruling) {
    item.append(el("p", { class: "tag ruled" }, `Disputed, and the GM let the roll stand.${note}`));
  }
  if (view.replaced_by !== null && view.replaced_by !== undefined) {
    item.append(el("p", { class: "tag" }, `Rolled again as #${view.replaced_by}.`));
  }
  if (view.replaces !== null && view.replaces !== undefined) {
    item.append(el("p", { class: "tag" }, `Rolls again #${view.replaces}, which the GM voided.`));
  }
  item.append(actions(view, { isGm, viewer }));
  return item;
}

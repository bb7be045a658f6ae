// Show a verification report (the JSON of `diceledger verify --file --json`) as text a
// person reads: the verdict in words, the first failure, what was counted, what the log
// was held to, and what was and was not checked. Green only for a log proven whole, with
// nothing left unchecked; built with DOM text nodes only, so nothing in an export (names,
// reasons) can become markup.

const COUNTS = [
  ["events", "Events read"],
  ["rolls", "Rolls decided again under the rules"],
  ["dice_verified", "Dice derived again from the revealed seeds"],
  ["manual_dice", "Dice typed in by hand (their faces cannot be derived)"],
  ["not_yet_verifiable_dice", "Dice of seeds not revealed yet (not verifiable yet)"],
  ["sealed_events", "Sealed lines of hidden blind rolls (sealed, not checked)"],
];

const CHECKED =
  "Checked here by diceledger's own verify, the code of `diceledger verify --file`, run in " +
  "this browser: the hash chain and versions, every command decided again under the rules " +
  "(totals, outcomes, who won), nonces, seed commitments, client seeds, and every die " +
  "against its revealed seed.";
const LOG_ALONE =
  "Held to the log alone: it agrees with itself, but nothing here shows that no event was " +
  "cut from its end or rewritten; a checkpoint this browser kept (a session's page " +
  "keeps one) or signed for the export shows that.";

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** Describe where a failure is: its store position and stream version, or the checkpoints. */
export function place(failure) {
  if (failure.position === null) return "the checkpoints";
  return `position ${failure.position} (version ${failure.stream_version})`;
}

// The heading, and whether it is green: proven, with every die and line checked.
function headline(report) {
  if (!report.ok) return ["\u2718 Verification failed", "verify-failed"];
  if (report.verdict === "unanchored") {
    return ["\u2714 Consistent, but not anchored: only a key the export itself carries signed it", "verify-partial"];
  }
  if (report.sealed_rolls.length > 0) {
    return ["\u2714 Verified in this browser, but for sealed lines (sealed, not checked)", "verify-partial"];
  }
  if (report.dice_verified === 0 && report.not_yet_verifiable_dice > 0) {
    return ["\u2714 The log holds together, but no die could be checked yet", "verify-partial"];
  }
  return ["\u2714 Verified in this browser", "verify-ok"];
}

function notChecked(report) {
  const open = [];
  if (report.manual_dice) open.push(`${report.manual_dice} dice typed in by hand (no seed to derive them from)`);
  if (report.not_yet_verifiable_dice) {
    open.push(`${report.not_yet_verifiable_dice} dice of seeds not revealed yet (checked once revealed)`);
  }
  if (report.sealed_events) open.push(`${report.sealed_events} sealed lines of hidden blind rolls`);
  return open.length ? `Not checked: ${open.join("; ")}.` : "Nothing was left unchecked.";
}

/** Replace the contents of ``container`` with the report. */
export function renderReport(report, container) {
  const [verdict, outcome] = headline(report);
  const section = element(
    "section",
    { class: `verify-report ${outcome}`, "data-ok": String(report.ok), "data-verdict": report.verdict },
    element("h2", {}, verdict),
  );
  const first = report.first_failure;
  if (first !== null) {
    const text = `First bad event: ${place(first)}: ${first.reason}`;
    section.append(element("p", { class: "verify-failure" }, text));
  }
  if (report.session_id !== null) {
    section.append(element("p", {}, "Session ", element("code", {}, report.session_id)));
  }
  const counts = element("dl", { class: "verify-counts" });
  for (const [key, label] of COUNTS) {
    const value = element("dd", { "data-count": key }, String(report[key]));
    counts.append(element("dt", {}, label), value);
  }
  section.append(counts);
  for (const rollId of report.sealed_rolls) {
    const text = `Roll ${rollId}: sealed, not checked (a hidden blind roll; export again after its reveal).`;
    section.append(element("p", { class: "verify-sealed" }, text));
  }
  if (report.unrevealed_epochs.length) {
    const epochs = report.unrevealed_epochs.join(", ");
    section.append(element("p", {}, `Seed epochs not revealed yet: ${epochs}.`));
  }
  const held = report.checkpoints;
  const anchor = element("p", { class: "verify-anchor" }, `Held to: ${held.checked}.`);
  section.append(anchor);
  for (const finding of held.findings) {
    const mark = finding.ok ? "\u2714" : "\u2718";
    section.append(element("p", { class: "verify-finding" }, `${mark} ${finding.source}: ${finding.detail}`));
  }
  section.append(element("p", { class: "verify-scope" }, CHECKED));
  if (report.anchor === "log-alone") section.append(element("p", { class: "verify-scope" }, LOG_ALONE));
  section.append(element("p", { class: "verify-scope" }, notChecked(report)));
  container.replaceChildren(section);
}

/** Show a message (an error before any report) in ``container``. */
export function renderMessage(text, container) {
  container.replaceChildren(element("p", { class: "verify-message" }, text));
}

// Show a verification report as text a person reads: the verdict in words, the first bad
// event, and what was counted. Built with DOM text nodes only, so nothing in an export
// (names, reasons) can become markup.

const COUNTS = [
  ["events", "Events read"],
  ["chain_links", "Hash chain links checked"],
  ["commitments_checked", "Revealed seeds checked against their commitments"],
  ["dice_verified", "Dice derived again from the revealed seeds"],
  ["manual_dice", "Dice typed in by hand (their faces cannot be derived)"],
  ["not_yet_verifiable_dice", "Dice of seeds not revealed yet (not verifiable yet)"],
  ["sealed_events", "Sealed lines of hidden blind rolls (sealed, not checked)"],
];

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** Describe where a failure is: its store position and stream version, or its line. */
export function place(failure) {
  if (failure.position === null) return failure.line ? `line ${failure.line}` : "the export";
  return `position ${failure.position} (version ${failure.stream_version})`;
}

/** Replace the contents of ``container`` with the report. */
export function renderReport(report, container) {
  const sealed = report.sealed_rolls.length > 0;
  let verdict = "\u2718 Verification failed";
  if (report.ok) {
    verdict = sealed
      ? "\u2714 Verified in this browser, but for sealed lines (sealed, not checked)"
      : "\u2714 Verified in this browser";
  }
  const outcome = report.ok ? "verify-ok" : "verify-failed";
  const section = element(
    "section",
    { class: `verify-report ${outcome}`, "data-ok": String(report.ok) },
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
  section.append(
    element(
      "p",
      { class: "verify-scope" },
      "Checked here, from the export alone: the hash chain and versions, nonces, seed " +
        "epochs and commitments, client seeds, and every die against its revealed seed. " +
        "Totals and outcomes under the rules are checked by diceledger verify.",
    ),
  );
  container.replaceChildren(section);
}

/** Show a message (an error before any report) in ``container``. */
export function renderMessage(text, container) {
  container.replaceChildren(element("p", { class: "verify-message" }, text));
}

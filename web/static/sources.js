// The labelled sources of a check (Advantage, Disadvantage, Eased, Hindered): rows to add
// and remove, read back as [{amount, label}], and the advantage score they net to (R7).

const TITLES = { adv: "Advantage", dis: "Disadvantage", eased: "Eased", hindered: "Hindered" };
let rowCount = 0;

/** Make the source lists of `form` live: add and remove rows; call `changed` after. */
export function setUpSources(form, template, changed) {
  form.addEventListener("click", (event) => {
    const add = event.target.closest("[data-add]");
    if (add !== null) {
      const row = addRow(form, add.dataset.add, template);
      row.querySelector(".source-amount").focus();
      changed();
      return;
    }
    const remove = event.target.closest(".remove-source");
    if (remove !== null) {
      const list = remove.closest("fieldset");
      remove.closest("li").remove();
      list.querySelector("[data-add]").focus();
      changed();
    }
  });
}

function addRow(form, kind, template) {
  const list = form.querySelector(`[data-sources="${kind}"] .source-rows`);
  const row = template.content.firstElementChild.cloneNode(true);
  rowCount += 1;
  const number = list.children.length + 1;
  const amount = row.querySelector(".source-amount");
  const label = row.querySelector(".source-label");
  amount.id = `source-${rowCount}-amount`;
  label.id = `source-${rowCount}-label`;
  amount.name = `${kind}_amount`;
  label.name = `${kind}_label`;
  amount.setAttribute("aria-label", `${TITLES[kind]} ${number}: amount`);
  label.setAttribute("aria-label", `${TITLES[kind]} ${number}: label (what grants it)`);
  row.querySelector(".remove-source").setAttribute("aria-label", `Remove ${TITLES[kind]} ${number}`);
  list.append(row);
  return row;
}

/** Return the sources of one kind as [{amount, label}]; blank amounts are left out. */
export function readSources(form, kind) {
  const rows = form.querySelectorAll(`[data-sources="${kind}"] .source-row`);
  const sources = [];
  for (const row of rows) {
    const amount = row.querySelector(".source-amount").value.trim();
    if (amount === "") continue;
    const label = row.querySelector(".source-label").value.trim();
    sources.push({ amount: Number(amount), label: label || null, control: row });
  }
  return sources;
}

/** Describe the advantage score of these sources in words (R7, R8). */
export function describeScore(advantage, disadvantage, median) {
  const sum = (sources) => sources.reduce((total, s) => total + (Number.isFinite(s.amount) ? s.amount : 0), 0);
  const score = sum(advantage) - sum(disadvantage);
  const base = median ? 3 : 1;
  const dice = base + Math.abs(score);
  const signed = score > 0 ? `+${score}` : String(score);
  if (median) {
    const which = score > 0 ? "the second-highest" : score < 0 ? "the second-lowest" : "the middle one";
    return `Advantage score ${signed}: ${dice} d20, ${which} counts.`;
  }
  if (score === 0) return "Advantage score 0: one d20.";
  const which = score > 0 ? "the highest" : "the lowest";
  return `Advantage score ${signed}: ${dice} d20, ${which} counts.`;
}

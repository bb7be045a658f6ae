// A badge for each open dispute, for the GM, kept live from the roll views the page draws:
// each links to the roll's review on the GM panel.

import { el } from "./dice-view.js";

export class DisputeBadges {
  constructor(element, sessionId) {
    this.element = element;
    this.sessionId = sessionId;
    this.open = new Set();
  }

  /** Take in a roll's view: its badge shows while its dispute waits for a ruling. */
  seen(view) {
    if (this.element === null) return;
    if (view.open_dispute) this.open.add(view.roll_id);
    else this.open.delete(view.roll_id);
    const ids = [...this.open].sort((a, b) => a - b);
    if (this.element.dataset.drawn === ids.join(",")) return;
    this.element.dataset.drawn = ids.join(",");
    this.element.replaceChildren(
      ...ids.map((id) =>
        el("a", { class: "badge", href: `/s/${this.sessionId}/gm#review-${id}` }, `Roll #${id} disputed: rule on it`),
      ),
    );
    this.element.hidden = ids.length === 0;
  }
}

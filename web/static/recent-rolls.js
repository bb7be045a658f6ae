// The member's last rolls as one-tap buttons: most turns at a table repeat one of a few
// rolls (the sword's attack, the Perception check), and on a phone the form is the slow
// part of a turn. Kept in this browser only, per session and member.

const KEPT = 3;

/** What "roll again" repeats: the request as it was sent, without its typed-in faces
 * (physical dice show new faces every time), its salt (each roll draws a fresh one in this
 * browser) and its action (a new turn is a new action, with its own rerolls). */
export function repeatable(body) {
  const { faces, salt, action, ...rest } = body;
  return rest;
}

function total(sources) {
  return (sources ?? []).reduce((sum, source) => sum + source.amount, 0);
}

/** The words of a button: what the roll is, as the log says it. */
export function describe(body) {
  const words = [body.kind, body.expression];
  if (body.vs) words.push(`vs ${body.vs.name} ${body.vs.expression}`);
  if (body.target !== undefined && body.target !== null) words.push(`vs ${body.target}`);
  if (body.dc !== undefined && body.dc !== null) words.push(`DC ${body.dc}`);
  for (const name of ["adv", "dis", "eased", "hindered"]) {
    if (total(body[name]) > 0) words.push(`${name} ${total(body[name])}`);
  }
  if (body.for) words.push(`for ${body.for}`);
  if (body.mode && body.mode !== "public") words.push(`(${body.mode})`);
  const text = words.join(" ");
  return body.label ? `${body.label}: ${text}` : text;
}

export class RecentRolls {
  /** ``roll(body)`` sends a repeated roll; ``storageKey`` names this session and member. */
  constructor(container, { storageKey, roll }) {
    this.container = container;
    this.storageKey = storageKey;
    this.roll = roll;
    this.kept = this.load();
    this.render();
  }

  load() {
    try {
      const kept = JSON.parse(window.localStorage.getItem(this.storageKey) ?? "[]");
      return Array.isArray(kept) ? kept.slice(0, KEPT) : [];
    } catch {
      return []; // storage off (a private window) or not ours: start with none
    }
  }

  /** Put a roll just sent first, once: the same roll again moves up, it is not doubled. */
  remember(body) {
    const roll = repeatable(body);
    const same = JSON.stringify(roll);
    this.kept = [roll, ...this.kept.filter((kept) => JSON.stringify(kept) !== same)].slice(0, KEPT);
    try {
      window.localStorage.setItem(this.storageKey, JSON.stringify(this.kept));
    } catch {
      // Not kept past this page: the buttons still serve until it is closed.
    }
    this.render();
  }

  render() {
    const buttons = this.kept.map((roll) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "recent-roll";
      const words = describe(roll);
      button.textContent = words;
      button.setAttribute("aria-label", `Roll again: ${words}`);
      button.addEventListener("click", () => this.roll(roll));
      return button;
    });
    this.container.querySelector(".recent-list").replaceChildren(...buttons);
    this.container.hidden = buttons.length === 0;
  }

  /** Stop offering rolls: the session has ended. */
  close() {
    for (const button of this.container.querySelectorAll("button")) button.disabled = true;
  }
}

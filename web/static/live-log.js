// Keep the log live. The rolls are loaded from GET /api/v1/sessions/{id}; then the
// session's Server-Sent Events (GET .../events) bring each new event: `id` is the stream
// version, `event` its type, `data` {"line": ..., "roll": <the roll's view or null>}.
// EventSource reconnects by itself and sends Last-Event-ID, so the server resumes after
// the last event seen; each new signed checkpoint follows the events it covers (`event:
// checkpoint`, data {"size", "checkpoint"}) and goes to onCheckpoint; after every reconnection the log is loaded again in full, so
// not a roll is missed even when the browser had to start a new stream. A lost
// connection shows a banner until the stream is back. A server without the stream route
// is read by polling instead.

import { call } from "./api.js";

const EVENT_TYPES = [
  "SessionStarted", "PlayerJoined", "SeedCommitted", "RollRequested", "DiceRolled",
  "DieExploded", "DieRerolled", "RollAccepted", "RollResolved", "CheckResolved",
  "OpposedCheckTied", "RollDisputed", "DisputeResolved", "RollRevealed", "SeedRevealed",
  "SessionEnded", "SheetRightsSet", "CharacterCreated", "AttributeSet", "QualitySet",
  "RollSaved", "CharacterRetired",
];
const POLL_MS = 1500;
const RETRY_MS = 3000;

export class LiveLog {
  constructor({ api, banner, status, onRoll, onSession, onLine, onCheckpoint }) {
    this.api = api;
    this.banner = banner;
    this.status = status;
    this.onRoll = onRoll; // a roll's view to draw
    this.onSession = onSession; // the whole session's view (members, ended)
    this.onLine = onLine; // a timeline line, for events that are not about a roll
    this.onCheckpoint = onCheckpoint; // a signed checkpoint note (null: ask for the latest)
    this.lost = false;
  }

  async start() {
    await this.reload();
    if (typeof EventSource === "function") this.connect();
    else this.poll();
  }

  async reload() {
    const session = await call("GET", this.api);
    this.onSession(session); // first: who is a member decides who may act on a roll
    for (const roll of session.rolls) this.onRoll(roll);
    this.status.textContent = session.rolls.length ? "" : "No rolls yet.";
    return session;
  }

  connect() {
    let opened = false;
    const source = new EventSource(`${this.api}/events`);
    this.source = source;
    source.addEventListener("open", () => {
      opened = true;
      if (this.lost) this.recovered();
    });
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (event) => this.received(JSON.parse(event.data)));
    }
    source.addEventListener("checkpoint", (event) => this.onCheckpoint(JSON.parse(event.data).checkpoint));
    source.addEventListener("error", () => {
      if (!opened && !this.lost && source.readyState === EventSource.CLOSED) {
        source.close();
        this.poll(); // no stream on this server (or not yet): poll instead
        return;
      }
      this.connectionLost();
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (the server answered an error): start a new stream later.
        source.close();
        setTimeout(() => this.connect(), RETRY_MS);
      }
    });
  }

  async received({ line, roll }) {
    if (roll) this.onRoll(roll);
    else if (line && line.roll_id !== null && line.roll_id !== undefined) {
      this.onRoll(await call("GET", `${this.api}/rolls/${line.roll_id}`));
    }
    if (line) this.onLine(line);
  }

  poll() {
    this.polling = setInterval(async () => {
      try {
        await this.reload();
        this.onCheckpoint(null);
        if (this.lost) this.recovered(false);
      } catch {
        this.connectionLost();
      }
    }, POLL_MS);
  }

  connectionLost() {
    if (this.lost) return;
    this.lost = true;
    this.banner.textContent = "Connection lost. Reconnecting\u2026 New rolls will appear once it is back.";
    this.banner.hidden = false;
  }

  async recovered(reload = true) {
    this.lost = false;
    this.banner.hidden = true;
    this.banner.textContent = "";
    if (reload) {
      try {
        await this.reload();
      } catch {
        this.connectionLost();
      }
    }
  }
}

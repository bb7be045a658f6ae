// The browser as a witness of a session's log. Every session page keeps, in this browser's
// localStorage and per server and session, the latest checkpoint it verified, and pins the
// server's key the first time it sees one. Each new checkpoint (on load, and from the live
// stream on the table) must be signed by the pinned key, or by a successor the pinned key
// vouched for in a rotation note of GET /api/v1/keys, and must be consistent with the kept
// one by an RFC 9162 proof (GET .../proof/consistency). When it is not, a red banner that
// stays (also after a reload) says so, with both checkpoints to download as evidence.

import { call } from "./api.js";
import { verifyConsistency } from "./merkle.js";
import { fromHex } from "./bytes.js";
import { NoteError, openCheckpoint, parseNote, parseVerifierKey, signedBy } from "./signed-note.js";
import { checkpointLabel } from "./witness-words.js";

export const ALARM = "this server showed you a different history of this session";
const ROTATION_FORMAT = "diceledger/key-rotation/v1";

// A verdict on the log: what the server showed does not hold. Anything else thrown (the
// server unreachable, say) is no verdict, and the next update tries again.
class Alarm extends Error {}

function stored(name) {
  try {
    return localStorage.getItem(name);
  } catch {
    return null; // storage refused (a private window's policy): witness this page only
  }
}

function store(name, value) {
  try {
    localStorage.setItem(name, value);
  } catch {
    // as above: the check still ran for this page
  }
}

export class Witness {
  constructor({ api, sessionId, footer, label, banner }) {
    this.api = api;
    this.sessionId = sessionId;
    this.footer = footer; // where the pinned key's fingerprint is shown
    this.label = label; // where `#size · words` of the kept checkpoint is shown
    this.banner = banner;
    const server = location.origin;
    this.keyName = `diceledger.key:${server}`;
    this.keptName = `diceledger.checkpoint:${server}:${sessionId}`;
    this.alarmName = `diceledger.alarm:${server}:${sessionId}`;
    this.queue = Promise.resolve();
  }

  /** Return what this browser holds to verify an export by: its kept checkpoint and pinned key. */
  held() {
    const kept = stored(this.keptName);
    const key = stored(this.keyName);
    return { kept: kept === null ? [] : [kept], keys: key === null ? [] : [key] };
  }

  /** Show what is kept, then check the session's latest checkpoint. */
  start() {
    this.show();
    return this.observe(null);
  }

  /** Check a checkpoint note (or, given null, the one the server answers now), in order. */
  observe(note) {
    this.queue = this.queue.then(() => this.check(note)).catch((error) => this.failed(error));
    return this.queue;
  }

  async check(given) {
    if (stored(this.alarmName) !== null) return; // the evidence stays as it was
    let note = given;
    if (note === null) {
      try {
        note = (await call("GET", `${this.api}/checkpoint`)).checkpoint;
      } catch (error) {
        if (error.status === 404) return; // nothing signed yet
        throw error;
      }
    }
    try {
      await this.hold(note);
    } catch (error) {
      // A note that does not parse, or a signature that fails, is the server's doing too.
      if (error instanceof NoteError || error instanceof Alarm) this.alarm(error.message, note);
      throw error;
    }
  }

  async hold(note) {
    const signer = await this.signer(note);
    const shown = await openCheckpoint(note, signer.key);
    if (shown.sessionId !== this.sessionId) {
      throw new Alarm(`the checkpoint heads session ${shown.sessionId}, not this one`);
    }
    const keptNote = stored(this.keptName);
    if (keptNote !== null) await this.consistent(keptNote, shown);
    if (keptNote === null || shown.size > this.keptSize(keptNote)) store(this.keptName, note);
    store(this.keyName, signer.pin.text);
    this.show();
  }

  keptSize(note) {
    return Number(note.split("\n")[1]);
  }

  /**
   * Return the key that signed `note` and the key to pin after it: the pinned key itself;
   * a successor it vouched for (pinned from then on); or a predecessor that vouched for
   * it (a session with no checkpoint since the rotation), which leaves the pin as it is.
   */
  async signer(note) {
    const pinnedText = stored(this.keyName);
    const parsed = parseNote(note);
    if (pinnedText !== null) {
      const pinned = await parseVerifierKey(pinnedText);
      if (await this.signs(parsed, pinned)) return { key: pinned, pin: pinned };
    }
    const keys = (await call("GET", "/api/v1/keys")).keys;
    const listed = await Promise.all(keys.map((entry) => parseVerifierKey(entry.verifier_key)));
    const signers = [];
    for (const key of listed) if (await this.signs(parsed, key)) signers.push(key);
    if (pinnedText === null) {
      // Trust on first use: the server's key that signed it, as the server lists it.
      if (!signers.length) throw new Error("no key the server lists signed its checkpoint");
      return { key: signers[0], pin: signers[0] };
    }
    const pinned = await parseVerifierKey(pinnedText);
    for (const successor of await this.vouched(keys, pinned)) {
      if (await this.signs(parsed, successor)) return { key: successor, pin: successor };
    }
    for (const key of signers) {
      const later = await this.vouched(keys, key);
      if (later.some((successor) => successor.text === pinned.text)) return { key, pin: pinned };
    }
    throw new Alarm(
      `the checkpoint is signed by a key that the key pinned in this browser (${this.fingerprint(pinnedText)}) never vouched for`,
    );
  }

  /** Return the keys `start` vouched for, in order: each rotation signed by the one before. */
  async vouched(keys, start) {
    const found = [];
    let key = start;
    for (let step = 0; step < keys.length; step += 1) {
      const entry = keys.find((listed) => listed.verifier_key === key.text);
      if (!entry?.successor || !entry.rotation) break;
      const successor = await parseVerifierKey(entry.successor);
      const endorsement = parseNote(entry.rotation);
      const wanted = `${ROTATION_FORMAT}\n${key.text}\n${successor.text}\n`;
      if (endorsement.text !== wanted || !(await signedBy(endorsement, key))) break;
      found.push(successor);
      key = successor;
    }
    return found;
  }

  async signs(parsed, key) {
    return (await signedBy(parsed, key)) === true; // a forged signature throws
  }

  /** Check that the kept checkpoint and `shown` are one history: the smaller a prefix. */
  async consistent(keptNote, shown) {
    const kept = parseNote(keptNote).text.split("\n");
    const keptSize = Number(kept[1]);
    const keptRoot = Uint8Array.from(atob(kept[2]), (c) => c.charCodeAt(0));
    const [small, large] = keptSize <= shown.size
      ? [[keptSize, keptRoot], [shown.size, shown.root]]
      : [[shown.size, shown.root], [keptSize, keptRoot]];
    let hashes = [];
    if (small[0] !== large[0] && small[0] !== 0) {
      const query = [["from", small[0]], ["to", large[0]]];
      const answer = await call("GET", `${this.api}/proof/consistency`, { query });
      if (answer.from !== small[0] || answer.to !== large[0]) {
        throw new Alarm(`the server gave a proof for sizes ${answer.from} to ${answer.to}`);
      }
      hashes = answer.proof.map((value) => fromHex(value) ?? new Uint8Array());
    }
    try {
      await verifyConsistency(small[0], large[0], hashes, small[1], large[1]);
    } catch (error) {
      throw new Alarm(error.message);
    }
  }

  /** Keep the evidence (the kept checkpoint and the one shown) and raise the banner. */
  alarm(reason, shownNote) {
    const evidence = { reason, kept: stored(this.keptName), shown: shownNote };
    store(this.alarmName, JSON.stringify(evidence));
    this.show(evidence);
  }

  failed(error) {
    if (error instanceof Alarm || error instanceof NoteError) return; // the banner is up
    // Not a verdict on the log (the server is unreachable, say): try again next update.
    if (this.label) this.label.title = `the checkpoint could not be checked: ${error.message}`;
  }

  fingerprint(keyText) {
    const [name, keyId] = keyText.split("+");
    return `${name} \u00b7 ${keyId}`;
  }

  /** Show the pinned key, the kept checkpoint and, if any, the alarm with its evidence. */
  show(evidence = JSON.parse(stored(this.alarmName) ?? "null")) {
    const keyText = stored(this.keyName);
    if (this.footer) {
      this.footer.textContent = keyText === null
        ? "No server key is pinned in this browser yet."
        : `Server key pinned in this browser: ${this.fingerprint(keyText)}`;
    }
    const keptNote = stored(this.keptName);
    if (this.label && keptNote !== null) {
      const checkpoint = parseNote(keptNote).text.split("\n");
      const root = Uint8Array.from(atob(checkpoint[2]), (c) => c.charCodeAt(0));
      this.label.textContent = checkpointLabel(Number(checkpoint[1]), root);
      this.label.hidden = false;
    }
    if (evidence && this.banner) this.raise(evidence);
  }

  raise({ reason, kept, shown }) {
    const banner = this.banner;
    const title = document.createElement("strong");
    title.textContent = `Warning: ${ALARM}.`;
    const why = document.createElement("p");
    why.textContent = reason;
    const links = document.createElement("p");
    for (const [what, note] of [["kept", kept], ["shown", shown]]) {
      if (!note) continue;
      const link = document.createElement("a");
      link.href = `data:text/plain;charset=utf-8,${encodeURIComponent(note)}`;
      link.download = `${this.sessionId}-${what}.checkpoint`;
      link.className = `evidence-${what}`;
      link.textContent = what === "kept" ? "The checkpoint this browser kept" : "The checkpoint the server showed now";
      links.append(link, " ");
    }
    banner.replaceChildren(title, why, links);
    banner.hidden = false;
  }
}

let witness = null;

/** Return this page's witness (one per page), started on first use; null off a session. */
export function pageWitness() {
  const footer = document.getElementById("witness");
  if (witness === null && footer?.dataset.api) {
    witness = new Witness({
      api: footer.dataset.api,
      sessionId: footer.dataset.session,
      footer: document.getElementById("witness-key"),
      label: document.getElementById("witness-checkpoint"),
      banner: document.getElementById("witness-alarm"),
    });
    if (globalThis.crypto?.subtle) witness.start();
    else witness.footer.textContent = "This browser cannot check the server's checkpoints here: WebCrypto works only over HTTPS or from localhost.";
  }
  return witness;
}

pageWitness();

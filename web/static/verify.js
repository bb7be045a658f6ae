// Verify an exported session in the browser, trusting nothing the server says about it.
//
// One pass over the events, in stream order, checks the hash chain and gapless versions,
// the nonces, that dice come only from the committed and not yet revealed seed epoch, that
// each revealed seed hashes to its commitment, and that each roll uses its roller's client
// seed. Then every die of a revealed epoch is derived again from the seed and must match
// face, block and word. These are the checks of `diceledger verify` (docs/verification.md)
// except one: resolving each roll again under the rules, which stays with the command line.
// A failure is named by store position, stream version and reason, as the command names it.

import { fromHex } from "./bytes.js";
import { ChainChecker } from "./chain.js";
import { SeededSource, commitment } from "./derive.js";
import { ExportError, parseExport } from "./records.js";
import { checkedEvent, LogError } from "./events.js";

/** Verify the text of an export (JSON Lines); resolve to the report. */
export async function verifyExport(text) {
  let records;
  try {
    records = parseExport(text);
  } catch (error) {
    if (error instanceof ExportError) return unreadable(error);
    throw error;
  }
  return verifyRecords(records);
}

/** Verify one session's parsed records (in stream order); resolve to the report. */
export async function verifyRecords(records) {
  const verifier = new Verifier();
  for (const record of records) await verifier.feed(record);
  return verifier.finish();
}

function unreadable(error) {
  const failure = { position: null, stream_version: null, line: error.line, reason: error.message };
  return { ...emptyReport(), ok: false, first_failure: failure, failures: [failure] };
}

function emptyReport() {
  return {
    session_id: null,
    ok: true,
    events: 0,
    rolls: 0,
    chain_links: 0,
    commitments_checked: 0,
    dice_verified: 0,
    manual_dice: 0,
    not_yet_verifiable_dice: 0,
    unrevealed_epochs: [],
    sealed_rolls: [],
    sealed_events: 0,
    first_failure: null,
    failures: [],
  };
}

class Verifier {
  constructor() {
    this.report = emptyReport();
    this.failures = [];
    this.chain = new ChainChecker();
    this.chainBroken = false;
    this.stopped = false;
    this.version = 0;
    this.epochs = []; // {number, commitment, seed}
    this.clientSeeds = new Map(); // member name -> client seed
    this.rolls = new Map(); // roll id -> its request
    this.lastNonce = 0;
    this.nonceUse = new Map(); // nonce -> "roll id/request" or "roll id/reroll"
    this.drawNonce = new Map(); // roll id -> the nonce its next dice must carry
    this.seeded = new Map(); // nonce -> [{record, rollId, die, request}]
    this.badSeeds = new Set();
    this.sealedNonces = 0; // sealed events since a visible nonce: each may have taken one
  }

  fail(record, reason) {
    this.failures.push({
      position: record.position,
      stream_version: record.stream_version,
      reason,
    });
  }

  async feed(record) {
    const report = this.report;
    report.events += 1;
    if (report.session_id === null) {
      report.session_id = record.stream_id;
    } else if (record.stream_id !== report.session_id) {
      this.fail(record, `an event of another session ('${record.stream_id}')`);
      return;
    }
    if (record.sealed === true) {
      this.sealed(record);
      return;
    }
    if (!this.chainBroken) {
      const problem = await this.chain.check(record);
      if (problem === null) report.chain_links += 1;
      else {
        this.fail(record, problem);
        this.chainBroken = true;
      }
    }
    if (this.stopped) return;
    try {
      await this.apply(record, checkedEvent(record));
    } catch (error) {
      if (!(error instanceof LogError)) throw error;
      this.fail(record, `${record.event_type} cannot follow the log before it: ${error.message}`);
      this.stopped = true;
    }
  }

  /** A sealed line: its link is checked, its roll named "sealed, not checked". */
  sealed(record) {
    const report = this.report;
    report.sealed_events += 1;
    if (!this.chainBroken) {
      const problem = this.chain.link(record);
      if (problem === null) report.chain_links += 1;
      else {
        this.fail(record, problem);
        this.chainBroken = true;
      }
    }
    if (this.stopped) return;
    if (record.stream_version !== this.version + 1) {
      const version = record.stream_version;
      this.fail(record, `event at version ${version} does not follow version ${this.version}`);
      this.stopped = true;
      return;
    }
    const id = record.roll_id;
    if (this.rolls.has(id) && !report.sealed_rolls.includes(id)) {
      this.fail(record, `a sealed event of roll ${id}, which is shown in full`);
      this.stopped = true;
      return;
    }
    if (!report.sealed_rolls.includes(id)) report.sealed_rolls.push(id);
    this.sealedNonces += 1;
    this.version = record.stream_version;
  }

  /** The next nonce, past those sealed events before it may have taken (each at most one). */
  nextNonce(nonce) {
    const next = this.lastNonce + 1;
    if (nonce > next && nonce <= next + this.sealedNonces) this.lastNonce = nonce - 1;
    this.sealedNonces = 0;
    return this.lastNonce + 1;
  }

  async apply(record, event) {
    if (record.stream_version !== this.version + 1) {
      const version = record.stream_version;
      throw new LogError(`event at version ${version} does not follow version ${this.version}`);
    }
    switch (record.event_type) {
      case "PlayerJoined":
        this.clientSeeds.set(event.name, event.client_seed);
        break;
      case "SeedCommitted":
        if (event.epoch !== this.epochs.length + 1) {
          this.fail(record, `epoch ${event.epoch} committed out of order`);
        }
        this.epochs.push({ number: event.epoch, commitment: event.commitment, seed: null });
        break;
      case "SeedRevealed":
        await this.seedRevealed(record, event);
        break;
      case "RollRequested":
        this.requested(record, event);
        break;
      case "DieRerolled":
        this.rerollNonce(record, event);
        this.dice(record, event.roll_id, [event.die]);
        break;
      case "DieExploded":
        this.dice(record, event.roll_id, [event.die]);
        break;
      case "DiceRolled":
        this.roundNonce(record, event);
        this.dice(record, event.roll_id, event.dice);
        break;
      default:
        if ("roll_id" in event) this.requestOf(event.roll_id);
    }
    this.version = record.stream_version;
  }

  epochOf(number) {
    const epoch = this.epochs[number - 1];
    if (number < 1 || epoch === undefined) throw new LogError(`there is no seed epoch ${number}`);
    return epoch;
  }

  async seedRevealed(record, event) {
    const epoch = this.epochOf(event.epoch);
    const seed = fromHex(event.seed);
    if (seed === null) throw new LogError(`the seed of epoch ${event.epoch} is not hex`);
    this.report.commitments_checked += 1;
    if ((await commitment(seed)) !== epoch.commitment) {
      this.badSeeds.add(event.epoch);
      this.fail(record, `the revealed seed of epoch ${event.epoch} does not match its commitment`);
    }
    epoch.seed = seed;
  }

  /** Tell whether dice may come from ``epoch``: the committed, not yet revealed one. */
  drawable(epoch) {
    const current = this.epochs.at(-1);
    if (current === undefined) throw new LogError("no seed is committed");
    return epoch === current.number && current.seed === null;
  }

  requested(record, request) {
    const id = request.roll_id;
    if (request.nonce !== this.nextNonce(request.nonce)) {
      const next = this.lastNonce + 1;
      this.fail(record, `roll ${id} took nonce ${request.nonce}, the next was ${next}`);
    }
    this.lastNonce = Math.max(this.lastNonce, request.nonce);
    this.nonceUse.set(request.nonce, `${id}/request`);
    this.drawNonce.set(id, request.nonce);
    if (!this.drawable(request.epoch)) {
      const epoch = request.epoch;
      this.fail(record, `roll ${id} names epoch ${epoch}, not the committed unrevealed one`);
    }
    const clientSeed = this.clientSeeds.get(request.roller);
    if (clientSeed !== undefined && request.client_seed !== clientSeed) {
      this.fail(record, `roll ${id} used a client seed that is not ${request.roller}'s`);
    }
    const dc = request.dc_modifier;
    if (dc !== null && request.target !== 10 + dc) {
      this.fail(record, `roll ${id}: a DC of ${dc} is ${10 + dc}, not ${request.target}`);
    }
    this.epochOf(request.epoch);
    this.rolls.set(id, request);
  }

  rerollNonce(record, event) {
    const nonce = event.die.nonce;
    const sameCommand =
      nonce === this.lastNonce && this.nonceUse.get(nonce) === `${event.roll_id}/reroll`;
    if (!sameCommand && nonce !== this.nextNonce(nonce)) {
      const [id, next] = [event.roll_id, this.lastNonce + 1];
      this.fail(record, `a reroll of roll ${id} took nonce ${nonce}, the next was ${next}`);
    }
    this.lastNonce = Math.max(this.lastNonce, nonce);
    this.nonceUse.set(nonce, `${event.roll_id}/reroll`);
    this.drawNonce.set(event.roll_id, nonce);
  }

  /**
   * Take the nonce of a command after the request that rolls an opposed check's fresh round:
   * an accept (or the end) whose round then ties draws it under the next nonce.
   */
  roundNonce(record, event) {
    if ((event.round ?? 1) === 1 || event.dice.length === 0) return;
    const nonce = event.dice[0].nonce;
    if (nonce === this.drawNonce.get(event.roll_id)) return;
    if (nonce !== this.nextNonce(nonce)) {
      const [id, next] = [event.roll_id, this.lastNonce + 1];
      this.fail(record, `round ${event.round} of roll ${id} took nonce ${nonce}, the next was ${next}`);
    }
    this.lastNonce = Math.max(this.lastNonce, nonce);
    this.nonceUse.set(nonce, `${event.roll_id}/round`);
    this.drawNonce.set(event.roll_id, nonce);
  }

  requestOf(rollId) {
    const request = this.rolls.get(rollId);
    if (request === undefined) throw new LogError(`there is no roll ${rollId}`);
    return request;
  }

  dice(record, rollId, dice) {
    const request = this.requestOf(rollId);
    for (const die of dice) {
      if (die.nonce !== this.drawNonce.get(rollId)) {
        this.fail(record, `roll ${rollId} die ${die.index} claims nonce ${die.nonce}`);
      }
      if (die.source === "manual") {
        this.report.manual_dice += 1;
        continue;
      }
      if (!this.drawable(die.epoch)) {
        const claim = `roll ${rollId} die ${die.index} claims epoch ${die.epoch}`;
        this.fail(record, `${claim}, not the committed unrevealed one`);
      }
      const entry = { record, rollId, die, request };
      const group = this.seeded.get(die.nonce);
      if (group === undefined) this.seeded.set(die.nonce, [entry]);
      else group.push(entry);
    }
  }

  async finish() {
    const report = this.report;
    report.rolls = this.rolls.size + report.sealed_rolls.length;
    await this.derive();
    if (report.events === 0) {
      const reason = "the export holds no events";
      this.failures.push({ position: null, stream_version: null, reason });
    }
    // The earliest in the log first; Array.prototype.sort is stable, so ties keep their order.
    const failures = [...this.failures].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
    report.failures = failures.slice(0, 20);
    report.first_failure = report.failures[0] ?? null;
    report.ok = this.failures.length === 0;
    return report;
  }

  async derive() {
    const used = new Set();
    for (const [nonce, dice] of this.seeded) {
      const number = dice[0].die.epoch;
      const epoch = this.epochs[number - 1];
      if (!Number.isInteger(number) || number < 1 || epoch === undefined) continue;
      used.add(number);
      if (this.badSeeds.has(number)) continue; // failed at its reveal: deriving proves nothing
      if (epoch.seed === null) {
        this.report.not_yet_verifiable_dice += dice.length;
        continue;
      }
      await this.deriveNonce(epoch, nonce, dice);
    }
    this.report.unrevealed_epochs = [...used]
      .filter((number) => this.epochs[number - 1].seed === null)
      .sort((a, b) => a - b);
  }

  async deriveNonce(epoch, nonce, dice) {
    const { client_seed: clientSeed, salt } = dice[0].request;
    const session = this.report.session_id;
    const source = await SeededSource.create(epoch.seed, session, nonce, clientSeed, salt);
    for (const { record, rollId, die } of dice) {
      const draw = await source.draw(die.sides);
      if (draw.face !== die.face || draw.block !== die.block || draw.word !== die.word) {
        this.fail(
          record,
          `roll ${rollId} die ${die.index}: the epoch ${epoch.number} seed gives ${draw.face} ` +
            `(block ${draw.block}, word ${draw.word}), the log says ${die.face} ` +
            `(block ${die.block}, word ${die.word})`,
        );
        return;
      }
      this.report.dice_verified += 1;
    }
  }
}

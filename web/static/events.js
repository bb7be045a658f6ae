// The session events the verifier reads: which types and schema versions exist, and the
// fields it needs from each, checked before use so a malformed event is named, not thrown.
// The catalogue must follow domain/session/events.py (a test compares the two).

export class LogError extends Error {}

/** Each event type's current schema version. */
export const SCHEMA_VERSIONS = {
  SessionStarted: 2,
  PlayerJoined: 1,
  SeedCommitted: 1,
  RollRequested: 4,
  DiceRolled: 1,
  DieExploded: 1,
  DieRerolled: 2,
  RollAccepted: 2,
  RollResolved: 1,
  CheckResolved: 1,
  OpposedCheckTied: 1,
  RollDisputed: 2,
  DisputeResolved: 2,
  RollRevealed: 1,
  SeedRevealed: 1,
  SessionEnded: 2,
  SheetRightsSet: 1,
  CharacterCreated: 1,
  AttributeSet: 1,
  QualitySet: 1,
  RollSaved: 1,
  CharacterRetired: 1,
};

// Older versions an upcaster still reads (infra/codec/old_versions.py).
const UPCAST_FROM = {
  SessionStarted: 1,
  RollRequested: 1,
  DieRerolled: 1,
  RollAccepted: 1,
  RollDisputed: 1,
  DisputeResolved: 1,
  SessionEnded: 1,
};

const isInteger = (value) => Number.isSafeInteger(value);
const KINDS = {
  integer: [isInteger, "an integer"],
  count: [(value) => isInteger(value) && value >= 0, "a whole number"],
  sides: [(value) => isInteger(value) && value >= 1, "a number of sides"],
  string: [(value) => typeof value === "string", "a string"],
  "integer or null": [(value) => value === null || isInteger(value), "an integer or null"],
};
const DIE = {
  index: "integer",
  sides: "sides",
  face: "integer",
  source: "string",
  epoch: "integer or null",
  nonce: "count",
  block: "integer or null",
  word: "integer or null",
};
const ROLL = { roll_id: "integer" };
const READS = {
  PlayerJoined: { name: "string", client_seed: "string" },
  SeedCommitted: { epoch: "integer", commitment: "string" },
  SeedRevealed: { epoch: "integer", seed: "string" },
  RollRequested: {
    ...ROLL,
    nonce: "count",
    epoch: "integer",
    roller: "string",
    client_seed: "string",
    salt: "string",
    target: "integer or null",
    dc_modifier: "integer or null",
  },
  DiceRolled: { ...ROLL, dice: [DIE] },
  DieExploded: { ...ROLL, die: DIE },
  DieRerolled: { ...ROLL, die: DIE },
  RollAccepted: ROLL,
  RollResolved: ROLL,
  CheckResolved: ROLL,
  OpposedCheckTied: ROLL,
  RollDisputed: ROLL,
  DisputeResolved: ROLL,
  RollRevealed: ROLL,
};

/** Return a record's data once its type, version and the fields read are right. */
export function checkedEvent(record) {
  const type = record.event_type;
  if (!Object.hasOwn(SCHEMA_VERSIONS, type)) throw new LogError(`unknown event type '${type}'`);
  const current = SCHEMA_VERSIONS[type];
  const version = record.schema_version;
  if (version > current) {
    throw new LogError(`${type} version ${version} is newer than this release`);
  }
  if (version < (UPCAST_FROM[type] ?? current)) {
    throw new LogError(`no upcaster for ${type} version ${version}`);
  }
  const problem = misfit(record.data, READS[type] ?? {}, "");
  if (problem !== null) throw new LogError(`${type} data does not fit the event: ${problem}`);
  return record.data;
}

function misfit(value, shape, path) {
  if (typeof shape === "string") {
    const [fits, name] = KINDS[shape];
    return fits(value) ? null : `${path} is not ${name}`;
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return `${path} is not a list`;
    for (const [index, item] of value.entries()) {
      const problem = misfit(item, shape[0], `${path}[${index}]`);
      if (problem !== null) return problem;
    }
    return null;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return `${path || "data"} is not an object`;
  }
  for (const [name, kind] of Object.entries(shape)) {
    if (!Object.hasOwn(value, name)) return `missing field '${path ? `${path}.` : ""}${name}'`;
    const problem = misfit(value[name], kind, path ? `${path}.${name}` : name);
    if (problem !== null) return problem;
  }
  return null;
}

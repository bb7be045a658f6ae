// A QR code drawn in the page, for a link to open on a phone: nothing is fetched, and the
// link (an invite or a sign-in code, both secrets) goes to no one else to be drawn.
//
// What is built is one symbol of ISO/IEC 18004: byte mode, error correction level M,
// the smallest version from 1 to 10 that holds the text (up to 213 bytes of UTF-8), and
// the mask of the lowest penalty. tests/web/test_qr.py holds it to a Python encoder
// module by module.

const ECC_M_FORMAT_BITS = 0b00;
// Per version 1 to 10, at level M: error correction codewords per block, then the blocks
// as [count, data codewords] groups.
const BLOCKS = [
  null,
  [10, [[1, 16]]],
  [16, [[1, 28]]],
  [26, [[1, 44]]],
  [18, [[2, 32]]],
  [24, [[2, 43]]],
  [16, [[4, 27]]],
  [18, [[4, 31]]],
  [22, [[2, 38], [2, 39]]],
  [22, [[3, 36], [2, 37]]],
  [26, [[4, 43], [1, 44]]],
];
const ALIGNMENT = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]];
const LARGEST_VERSION = 10;

// -- Reed-Solomon over GF(256), primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 -------------

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i += 1) {
  EXP[i] = x;
  LOG[x] = i;
  x <<= 1;
  if (x & 0x100) x ^= 0x11d;
}
for (let i = 255; i < 512; i += 1) EXP[i] = EXP[i - 255];

function multiply(a, b) {
  return a === 0 || b === 0 ? 0 : EXP[LOG[a] + LOG[b]];
}

/** The generator polynomial of degree n, highest power first, without its leading 1. */
function generator(n) {
  let poly = [1];
  for (let i = 0; i < n; i += 1) {
    const next = new Array(poly.length + 1).fill(0);
    for (let j = 0; j < poly.length; j += 1) {
      next[j] ^= poly[j];
      next[j + 1] ^= multiply(poly[j], EXP[i]);
    }
    poly = next;
  }
  return poly.slice(1);
}

function remainder(data, n) {
  const divisor = generator(n);
  const rest = new Array(n).fill(0);
  for (const byte of data) {
    const factor = byte ^ rest.shift();
    rest.push(0);
    for (let i = 0; i < n; i += 1) rest[i] ^= multiply(divisor[i], factor);
  }
  return rest;
}

// -- the codewords ----------------------------------------------------------------------

function dataCapacity(version) {
  const [, groups] = BLOCKS[version];
  return groups.reduce((sum, [count, size]) => sum + count * size, 0);
}

function countBits(version) {
  return version < 10 ? 8 : 16;
}

function smallestVersion(length) {
  for (let version = 1; version <= LARGEST_VERSION; version += 1) {
    if (4 + countBits(version) + 8 * length <= 8 * dataCapacity(version)) return version;
  }
  return null;
}

function dataCodewords(bytes, version) {
  const bits = [];
  const put = (value, width) => {
    for (let i = width - 1; i >= 0; i -= 1) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(bytes.length, countBits(version));
  for (const byte of bytes) put(byte, 8);
  const capacity = 8 * dataCapacity(version);
  put(0, Math.min(4, capacity - bits.length));
  while (bits.length % 8 !== 0) bits.push(0);
  const words = [];
  for (let i = 0; i < bits.length; i += 8) words.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  for (let pad = 0xec; words.length < capacity / 8; pad ^= 0xec ^ 0x11) words.push(pad);
  return words;
}

/** The data and error correction codewords, interleaved block by block. */
function codewords(bytes, version) {
  const [eccPerBlock, groups] = BLOCKS[version];
  const data = dataCodewords(bytes, version);
  const blocks = [];
  let at = 0;
  for (const [count, size] of groups) {
    for (let i = 0; i < count; i += 1) {
      const words = data.slice(at, at + size);
      at += size;
      blocks.push({ words, ecc: remainder(words, eccPerBlock) });
    }
  }
  const out = [];
  const longest = Math.max(...blocks.map((block) => block.words.length));
  for (let i = 0; i < longest; i += 1) {
    for (const block of blocks) if (i < block.words.length) out.push(block.words[i]);
  }
  for (let i = 0; i < eccPerBlock; i += 1) for (const block of blocks) out.push(block.ecc[i]);
  return out;
}

// -- the symbol -------------------------------------------------------------------------

class Grid {
  constructor(version) {
    this.version = version;
    this.size = 17 + 4 * version;
    this.dark = Array.from({ length: this.size }, () => new Array(this.size).fill(0));
    this.fixed = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
  }

  set(row, col, dark) {
    this.dark[row][col] = dark ? 1 : 0;
    this.fixed[row][col] = true;
  }

  drawFunctionPatterns() {
    const last = this.size - 1;
    for (let i = 0; i < this.size; i += 1) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    for (const [row, col] of [[3, 3], [3, last - 3], [last - 3, 3]]) this.finder(row, col);
    const centres = ALIGNMENT[this.version];
    for (const row of centres) {
      for (const col of centres) {
        const onFinder = (row === 6 && (col === 6 || col === centres.at(-1))) || (row === centres.at(-1) && col === 6);
        if (!onFinder) this.alignment(row, col);
      }
    }
    this.drawFormat(0); // reserves the format areas; drawn again with the chosen mask
    this.drawVersion();
  }

  finder(row, col) {
    for (let dr = -4; dr <= 4; dr += 1) {
      for (let dc = -4; dc <= 4; dc += 1) {
        const r = row + dr;
        const c = col + dc;
        if (r < 0 || c < 0 || r >= this.size || c >= this.size) continue;
        const ring = Math.max(Math.abs(dr), Math.abs(dc));
        this.set(r, c, ring !== 2 && ring !== 4);
      }
    }
  }

  alignment(row, col) {
    for (let dr = -2; dr <= 2; dr += 1) {
      for (let dc = -2; dc <= 2; dc += 1) this.set(row + dr, col + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1);
    }
  }

  drawFormat(mask) {
    const data = (ECC_M_FORMAT_BITS << 3) | mask;
    let rest = data;
    for (let i = 0; i < 10; i += 1) rest = (rest << 1) ^ ((rest >>> 9) * 0x537);
    const bits = ((data << 10) | rest) ^ 0x5412;
    const bit = (i) => (bits >>> i) & 1;
    const last = this.size - 1;
    for (let i = 0; i <= 5; i += 1) this.set(i, 8, bit(i));
    this.set(7, 8, bit(6));
    this.set(8, 8, bit(7));
    this.set(8, 7, bit(8));
    for (let i = 9; i < 15; i += 1) this.set(8, 14 - i, bit(i));
    for (let i = 0; i < 8; i += 1) this.set(8, last - i, bit(i));
    for (let i = 8; i < 15; i += 1) this.set(this.size - 15 + i, 8, bit(i));
    this.set(this.size - 8, 8, 1); // the dark module
  }

  drawVersion() {
    if (this.version < 7) return;
    let rest = this.version;
    for (let i = 0; i < 12; i += 1) rest = (rest << 1) ^ ((rest >>> 11) * 0x1f25);
    const bits = (this.version << 12) | rest;
    for (let i = 0; i < 18; i += 1) {
      const dark = (bits >>> i) & 1;
      const near = this.size - 11 + (i % 3);
      const far = Math.floor(i / 3);
      this.set(far, near, dark);
      this.set(near, far, dark);
    }
  }

  /** Place the codewords' bits in the zigzag of column pairs, right to left. */
  drawCodewords(words) {
    let index = 0;
    const total = words.length * 8;
    for (let right = this.size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5; // the vertical timing pattern is skipped whole
      const upward = ((right + 1) & 2) === 0;
      for (let step = 0; step < this.size; step += 1) {
        const row = upward ? this.size - 1 - step : step;
        for (const col of [right, right - 1]) {
          if (this.fixed[row][col]) continue;
          if (index < total) this.dark[row][col] = (words[index >>> 3] >>> (7 - (index & 7))) & 1;
          index += 1;
        }
      }
    }
  }

  applyMask(mask) {
    for (let row = 0; row < this.size; row += 1) {
      for (let col = 0; col < this.size; col += 1) {
        if (!this.fixed[row][col] && MASKS[mask](row, col)) this.dark[row][col] ^= 1;
      }
    }
  }
}

const MASKS = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i + j) % 2) + ((i * j) % 3)) % 2 === 0,
];

// -- choosing the mask: the four penalty rules ----------------------------------------------

const FINDER_LIKE = ["00001011101", "10111010000"];

function lines(dark) {
  const size = dark.length;
  const rows = dark.map((row) => row.join(""));
  const cols = Array.from({ length: size }, (_, c) => dark.map((row) => row[c]).join(""));
  return rows.concat(cols);
}

/** The penalty of a masked symbol: runs, 2x2 blocks, finder-like patterns, balance. */
export function penalty(dark) {
  const size = dark.length;
  let score = 0;
  for (const line of lines(dark)) {
    for (const run of line.match(/0+|1+/g)) if (run.length >= 5) score += run.length - 2;
    for (const pattern of FINDER_LIKE) {
      for (let at = line.indexOf(pattern); at !== -1; at = line.indexOf(pattern, at + 1)) score += 40;
    }
  }
  for (let r = 0; r + 1 < size; r += 1) {
    for (let c = 0; c + 1 < size; c += 1) {
      const sum = dark[r][c] + dark[r][c + 1] + dark[r + 1][c] + dark[r + 1][c + 1];
      if (sum === 0 || sum === 4) score += 3;
    }
  }
  const darkCount = dark.reduce((sum, row) => sum + row.reduce((a, b) => a + b, 0), 0);
  const percent = (darkCount * 100) / (size * size);
  const below = percent - (percent % 5);
  score += Math.min(Math.abs(below - 50), Math.abs(below + 5 - 50)) * 2;
  return score;
}

/**
 * The QR symbol of ``text``: `{ version, mask, size, dark }`, `dark` its rows of 0 and 1
 * (no quiet zone), or null when the text is longer than version 10 holds. ``mask`` forces
 * a mask (0 to 7) instead of the one of the lowest penalty.
 */
export function qrSymbol(text, mask = null) {
  const bytes = new TextEncoder().encode(text);
  const version = smallestVersion(bytes.length);
  if (version === null) return null;
  const words = codewords(bytes, version);
  const build = (candidate) => {
    const symbol = new Grid(version);
    symbol.drawFunctionPatterns();
    symbol.drawCodewords(words);
    symbol.applyMask(candidate);
    symbol.drawFormat(candidate);
    return symbol;
  };
  let best = null;
  let bestScore = Infinity;
  for (const candidate of mask === null ? [0, 1, 2, 3, 4, 5, 6, 7] : [mask]) {
    const symbol = build(candidate);
    const score = penalty(symbol.dark);
    if (score < bestScore) {
      best = { version, mask: candidate, size: symbol.size, dark: symbol.dark };
      bestScore = score;
    }
  }
  return best;
}

const SVG = "http://www.w3.org/2000/svg";
const QUIET = 4;

/** An SVG element of ``text``'s QR code, labelled for a screen reader; null if too long. */
export function qrImage(text, label) {
  const symbol = qrSymbol(text);
  if (symbol === null) return null;
  const side = symbol.size + 2 * QUIET;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.setAttribute("class", "qr-code");
  svg.setAttribute("shape-rendering", "crispEdges");
  const ground = document.createElementNS(SVG, "rect");
  for (const [name, value] of [["width", side], ["height", side], ["fill", "#fff"]]) ground.setAttribute(name, String(value));
  const modules = document.createElementNS(SVG, "path");
  const steps = [];
  symbol.dark.forEach((row, r) => row.forEach((dark, c) => {
    if (dark) steps.push(`M${c + QUIET} ${r + QUIET}h1v1h-1z`);
  }));
  modules.setAttribute("d", steps.join(""));
  modules.setAttribute("fill", "#000");
  svg.append(ground, modules);
  return svg;
}

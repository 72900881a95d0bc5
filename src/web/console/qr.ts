// A QR code encoder (ISO/IEC 18004) for the device link on the Access screen: byte mode, error
// correction level M (15% of the symbol may be lost: a phone camera at an angle, a glare), versions
// 1 to 10, which hold up to 213 bytes (a login link on a LAN address is under 100).

/** A QR symbol: `size` × `size` modules, row by row, 1 for dark. */
export interface QrCode {
  version: number;
  size: number;
  modules: Uint8Array;
}

/** Level M, by version: error correction codewords per block, and the number of blocks. */
const ecPerBlock = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26];
const blockCount = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5];

/** The centres of the alignment patterns (each pair of them): to version 10, evenly from 6 to size - 7. */
function alignmentCentres(version: number): number[] {
  if (version === 1) return [];
  const last = 10 + 4 * version;
  return version < 7 ? [6, last] : [6, (6 + last) / 2, last];
}

/** The eight data masks: a module at column x, row y is flipped where the mask says true. */
const masks: readonly ((x: number, y: number) => boolean)[] = [
  (x, y) => (x + y) % 2 === 0,
  (_x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(y / 2) + Math.floor(x / 3)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

/** Multiplication in GF(256) modulo x⁸ + x⁴ + x³ + x² + 1, the field of QR's Reed–Solomon code. */
function gfMul(a: number, b: number): number {
  let product = 0;
  for (let x = a, y = b; y > 0; y >>= 1) {
    if (y & 1) product ^= x;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  return product;
}

/** The `count` error correction codewords of a block: the remainder of its division by the generator. */
function errorCorrection(data: Uint8Array, count: number): Uint8Array {
  // The generator (x - α⁰)(x - α¹)…(x - α^(count-1)), highest power first.
  let generator = [1];
  for (let i = 0, root = 1; i < count; i++, root = gfMul(root, 2)) {
    const next = [...generator, 0];
    for (let j = 0; j < generator.length; j++)
      next[j + 1] = (next[j + 1] ?? 0) ^ gfMul(generator[j] ?? 0, root);
    generator = next;
  }
  const remainder = new Uint8Array(count);
  for (const byte of data) {
    const factor = byte ^ (remainder[0] ?? 0);
    remainder.copyWithin(0, 1);
    remainder[count - 1] = 0;
    for (let k = 0; k < count; k++) remainder[k] = (remainder[k] ?? 0) ^ gfMul(generator[k + 1] ?? 0, factor);
  }
  return remainder;
}

/** A `bits`-bit BCH code word of `value`: the value, then its remainder modulo `generator`. */
function bch(value: number, generator: number, bits: number): number {
  const degree = 31 - Math.clz32(generator);
  let remainder = value << degree;
  for (let bit = bits - 1; bit >= degree; bit--)
    if ((remainder >>> bit) & 1) remainder ^= generator << (bit - degree);
  return (value << degree) | remainder;
}

/** A symbol being drawn: its modules and which of them belong to a function pattern. */
class Grid {
  readonly modules: Uint8Array;
  readonly reserved: Uint8Array;
  constructor(readonly size: number) {
    this.modules = new Uint8Array(size * size);
    this.reserved = new Uint8Array(size * size);
  }
  set(x: number, y: number, dark: boolean): void {
    this.modules[y * this.size + x] = dark ? 1 : 0;
    this.reserved[y * this.size + x] = 1;
  }
}

/** Finders with their separators, timing, alignment, the dark module, and room for format and version. */
function drawFunctionPatterns(grid: Grid, version: number): void {
  const { size } = grid;
  for (let i = 0; i < size; i++) {
    grid.set(6, i, i % 2 === 0);
    grid.set(i, 6, i % 2 === 0);
  }
  for (const [cx, cy] of [
    [3, 3],
    [size - 4, 3],
    [3, size - 4],
  ] as const) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const ring = Math.max(Math.abs(dx), Math.abs(dy));
        const x = cx + dx;
        const y = cy + dy;
        if (x >= 0 && x < size && y >= 0 && y < size) grid.set(x, y, ring !== 2 && ring !== 4);
      }
    }
  }
  const centres = alignmentCentres(version);
  const last = centres.length - 1;
  centres.forEach((cx, i) => {
    centres.forEach((cy, j) => {
      // The three corners a finder already occupies.
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++)
          grid.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    });
  });
  drawFormat(grid, 0);
  if (version >= 7) {
    const bits = bch(version, 0x1f25, 18);
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      grid.set(a, b, dark);
      grid.set(b, a, dark);
    }
  }
}

/** The format information (level M, the mask) in its two copies, and the dark module beside them. */
function drawFormat(grid: Grid, mask: number): void {
  const { size } = grid;
  // Level M is 00; the code word is masked with 101010000010010 so that it is never all light.
  const bits = bch(mask, 0x537, 15) ^ 0x5412;
  const bit = (i: number) => ((bits >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i++) grid.set(8, i, bit(i));
  grid.set(8, 7, bit(6));
  grid.set(8, 8, bit(7));
  grid.set(7, 8, bit(8));
  for (let i = 9; i < 15; i++) grid.set(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) grid.set(size - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) grid.set(8, size - 15 + i, bit(i));
  grid.set(8, size - 8, true);
}

/** How many whole codewords a version's symbol holds: its modules left free by the function patterns. */
function capacity(version: number): number {
  const grid = new Grid(17 + 4 * version);
  drawFunctionPatterns(grid, version);
  return Math.floor(grid.reserved.reduce((free, taken) => free + 1 - taken, 0) / 8);
}

/** The data codewords: byte mode, the count, the bytes, the terminator and the pad bytes. */
function dataCodewords(bytes: Uint8Array, version: number, count: number): Uint8Array {
  const bits: number[] = [];
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  for (const byte of bytes) put(byte, 8);
  put(0, Math.min(4, count * 8 - bits.length));
  while (bits.length % 8 !== 0) bits.push(0);
  for (let pad = 0xec; bits.length < count * 8; pad ^= 0xec ^ 0x11) put(pad, 8);
  const codewords = new Uint8Array(count);
  bits.forEach((b, i) => {
    codewords[i >>> 3] = (codewords[i >>> 3] ?? 0) | (b << (7 - (i & 7)));
  });
  return codewords;
}

/** The blocks with their error correction, interleaved codeword by codeword as the symbol stores them. */
function interleave(data: Uint8Array, version: number, total: number): Uint8Array {
  const ecCount = ecPerBlock[version] ?? 0;
  const blocks = blockCount[version] ?? 1;
  const short = Math.floor(data.length / blocks);
  // The last `data.length % blocks` blocks hold one data codeword more.
  const longFrom = blocks - (data.length % blocks);
  const parts: Uint8Array[] = [];
  for (let b = 0, at = 0; b < blocks; b++) {
    const length = short + (b >= longFrom ? 1 : 0);
    parts.push(data.subarray(at, at + length));
    at += length;
  }
  const corrections = parts.map((part) => errorCorrection(part, ecCount));
  const out: number[] = [];
  for (let i = 0; i <= short; i++) for (const part of parts) if (i < part.length) out.push(part[i] ?? 0);
  for (let i = 0; i < ecCount; i++) for (const ec of corrections) out.push(ec[i] ?? 0);
  if (out.length !== total) throw new Error(`QR version ${version}: ${out.length} codewords, not ${total}`);
  return Uint8Array.from(out);
}

/** The codewords' bits in the free modules, two columns at a time, upward and downward in turn. */
function placeCodewords(grid: Grid, codewords: Uint8Array): void {
  const { size } = grid;
  let i = 0;
  let upward = true;
  for (let right = size - 1; right >= 1; right -= 2) {
    // The vertical timing pattern takes a column of its own.
    if (right === 6) right = 5;
    for (let step = 0; step < size; step++) {
      const y = upward ? size - 1 - step : step;
      for (const x of [right, right - 1]) {
        if (grid.reserved[y * size + x]) continue;
        const byte = codewords[i >>> 3] ?? 0;
        grid.modules[y * size + x] = (byte >>> (7 - (i & 7))) & 1;
        i++;
      }
    }
    upward = !upward;
  }
}

/** The penalty a masked symbol scores (lower reads better): runs, blocks, finder look-alikes, balance. */
function penalty(modules: Uint8Array, size: number): number {
  let score = 0;
  for (const across of [true, false]) {
    for (let a = 0; a < size; a++) {
      let run = 0;
      let previous = -1;
      let window = 0;
      for (let b = 0; b < size; b++) {
        const dark = modules[across ? a * size + b : b * size + a] ?? 0;
        run = dark === previous ? run + 1 : 1;
        previous = dark;
        if (run === 5) score += 3;
        else if (run > 5) score += 1;
        // 1011101 with four light modules on one side looks like a finder.
        window = ((window << 1) | dark) & 0x7ff;
        if (b >= 10 && (window === 0b10111010000 || window === 0b00001011101)) score += 40;
      }
    }
  }
  let dark = 0;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const here = modules[y * size + x] ?? 0;
      dark += here;
      if (
        x < size - 1 &&
        y < size - 1 &&
        here === modules[y * size + x + 1] &&
        here === modules[(y + 1) * size + x] &&
        here === modules[(y + 1) * size + x + 1]
      )
        score += 3;
    }
  }
  return score + 10 * Math.floor(Math.abs((dark * 100) / (size * size) - 50) / 5);
}

/** Encodes text (as UTF-8) in the smallest version that holds it, with the mask that scores best. */
export function encodeQr(text: string): QrCode {
  const bytes = new TextEncoder().encode(text);
  for (let version = 1; version < ecPerBlock.length; version++) {
    const total = capacity(version);
    const dataCount = total - (ecPerBlock[version] ?? 0) * (blockCount[version] ?? 0);
    if (4 + (version < 10 ? 8 : 16) + bytes.length * 8 > dataCount * 8) continue;
    const codewords = interleave(dataCodewords(bytes, version, dataCount), version, total);
    const size = 17 + 4 * version;
    let best: { modules: Uint8Array; score: number } | undefined;
    masks.forEach((flip, mask) => {
      const grid = new Grid(size);
      drawFunctionPatterns(grid, version);
      placeCodewords(grid, codewords);
      for (let y = 0; y < size; y++) {
        for (let x = 0; x < size; x++) {
          const at = y * size + x;
          if (!grid.reserved[at] && flip(x, y)) grid.modules[at] = 1 - (grid.modules[at] ?? 0);
        }
      }
      drawFormat(grid, mask);
      const score = penalty(grid.modules, size);
      if (best === undefined || score < best.score) best = { modules: grid.modules, score };
    });
    if (best) return { version, size, modules: best.modules };
  }
  throw new Error(`${bytes.length} bytes are too many for a QR code here (213 at most)`);
}

/** An SVG path of the dark modules, one rectangle per horizontal run, `margin` modules in. */
export function qrPath(code: QrCode, margin = 4): string {
  const { size, modules } = code;
  let d = "";
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (!modules[y * size + x]) continue;
      let run = 1;
      while (x + run < size && modules[y * size + x + run]) run++;
      d += `M${x + margin} ${y + margin}h${run}v1h-${run}z`;
      x += run - 1;
    }
  }
  return d;
}

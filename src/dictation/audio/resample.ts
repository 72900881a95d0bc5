import { SAMPLE_RATE } from "./rate.ts";

/** A streaming sample-rate converter: push chunks in order, then flush once. */
export interface Resampler {
  push(input: Float32Array): Float32Array;
  flush(): Float32Array;
}

// Kaiser-windowed sinc, applied polyphase. Cut-off at 90% of the lower Nyquist with 16 zero
// crossings a side (ffmpeg's swresample default length): flat to 6 kHz, -3 dB at 7 kHz, at
// least 75 dB down from 8.5 kHz, for about 110 multiply-adds per 16 kHz output sample.
const ROLLOFF = 0.9;
const ZERO_CROSSINGS = 16;
const KAISER_BETA = 8;
// Rates sharing no large factor with 16 kHz (e.g. 44 101 Hz) would need thousands of phases;
// snapping to the nearest of 1024 per output sample keeps the timing error under 0.05% of an
// output sample, and keeps every table near 40 000 coefficients whatever rate a header names.
const MAX_PHASES = 1024;
// Headers choose the rate, so the cache is bounded: common rates stay, odd ones are rebuilt.
const MAX_CACHED_FILTERS = 16;

interface Filter {
  up: number;
  down: number;
  phases: number;
  halfTaps: number;
  coefs: Float32Array;
}

const filters = new Map<string, Filter>();

/** Resamples a whole signal; output length is ceil(input × to / from). */
export function resample(input: Float32Array, fromRate: number, toRate = SAMPLE_RATE): Float32Array {
  const resampler = createResampler(fromRate, toRate);
  return concat([resampler.push(input), resampler.flush()]);
}

export function createResampler(fromRate: number, toRate = SAMPLE_RATE): Resampler {
  if (fromRate === toRate) return { push: (input) => input, flush: () => new Float32Array(0) };
  const filter = filterFor(fromRate, toRate);
  const { up, down, halfTaps } = filter;
  const cursor = { position: 0, phase: 0 };
  let buffer: Float32Array = new Float32Array(halfTaps - 1);
  let bufferStart = -(halfTaps - 1);
  let received = 0;
  let produced = 0;

  // Emits every output whose taps lie inside the buffer, up to `limit` outputs in total.
  const produce = (limit: number): Float32Array => {
    const last = bufferStart + buffer.length - 1 - halfTaps;
    const reachable = last < 0 ? 0 : Math.ceil(((last + 1) * up) / down);
    const out = convolve(
      filter,
      buffer,
      bufferStart,
      cursor,
      Math.max(0, Math.min(reachable, limit) - produced),
    );
    produced += out.length;
    const drop = cursor.position - (halfTaps - 1) - bufferStart;
    if (drop > 0) {
      buffer = buffer.subarray(drop);
      bufferStart += drop;
    }
    return out;
  };

  return {
    push(input) {
      buffer = concat([buffer, input]);
      received += input.length;
      return produce(Number.POSITIVE_INFINITY);
    },
    flush() {
      buffer = concat([buffer, new Float32Array(halfTaps + 1)]);
      return produce(Math.ceil((received * up) / down));
    },
  };
}

/** `count` outputs from the cursor on; `signal[0]` is input sample number `signalStart`. */
function convolve(
  filter: Filter,
  signal: Float32Array,
  signalStart: number,
  cursor: { position: number; phase: number },
  count: number,
): Float32Array {
  const { up, down, phases, halfTaps, coefs } = filter;
  const taps = 2 * halfTaps;
  const exact = phases === up;
  const stepWhole = Math.floor(down / up);
  const stepPhase = down % up;
  const offset = halfTaps - 1 + signalStart;
  let { position, phase } = cursor;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    // `| 0` keeps every index an int32 for the JIT, whichever rates ran before (else ~4× slower).
    const row = (exact ? phase : Math.round((phase * phases) / up)) | 0;
    out[i] = dot(signal, (position - offset) | 0, coefs, (row * taps) | 0, taps);
    position += stepWhole;
    phase += stepPhase;
    if (phase >= up) {
      phase -= up;
      position++;
    }
  }
  cursor.position = position;
  cursor.phase = phase;
  return out;
}

/** Σ signal[a+k]·coefs[b+k] over `taps` (a multiple of 4), four partial sums for the JIT. */
function dot(signal: Float32Array, a: number, coefs: Float32Array, b: number, taps: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let k = 0; k < taps; k += 4) {
    s0 += (signal[a + k] ?? 0) * (coefs[b + k] ?? 0);
    s1 += (signal[a + k + 1] ?? 0) * (coefs[b + k + 1] ?? 0);
    s2 += (signal[a + k + 2] ?? 0) * (coefs[b + k + 2] ?? 0);
    s3 += (signal[a + k + 3] ?? 0) * (coefs[b + k + 3] ?? 0);
  }
  return s0 + s1 + s2 + s3;
}

function filterFor(fromRate: number, toRate: number): Filter {
  const key = `${fromRate}:${toRate}`;
  const cached = filters.get(key);
  if (cached) {
    filters.delete(key);
    filters.set(key, cached);
    return cached;
  }
  const divisor = gcd(fromRate, toRate);
  const up = toRate / divisor;
  const down = fromRate / divisor;
  const phases = Math.min(up, Math.ceil(MAX_PHASES * Math.min(1, toRate / fromRate)));
  // Cut-off in cycles per input sample, below whichever Nyquist frequency is lower.
  const cutoff = 0.5 * Math.min(1, toRate / fromRate) * ROLLOFF;
  const reach = ZERO_CROSSINGS / (2 * cutoff);
  const halfTaps = 2 * Math.ceil(reach / 2);
  const taps = 2 * halfTaps;
  // One extra row (fraction 1.0) so rounding to the nearest phase never needs to wrap.
  const coefs = new Float32Array((phases + 1) * taps);
  for (let row = 0; row <= phases; row++) {
    const fraction = row / phases;
    let total = 0;
    for (let k = 0; k < taps; k++) {
      const t = fraction + halfTaps - 1 - k;
      const value = 2 * cutoff * sinc(2 * cutoff * t) * kaiser(t / reach);
      coefs[row * taps + k] = value;
      total += value;
    }
    // Unit gain at DC in every phase, so no phase-dependent ripple creeps in.
    for (let k = 0; k < taps; k++) coefs[row * taps + k] = (coefs[row * taps + k] ?? 0) / total;
  }
  const filter = { up, down, phases, halfTaps, coefs };
  filters.set(key, filter);
  const oldest = filters.keys().next().value;
  if (filters.size > MAX_CACHED_FILTERS && oldest !== undefined) filters.delete(oldest);
  return filter;
}

const sinc = (x: number) => (x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x));

const kaiser = (x: number) =>
  Math.abs(x) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - x * x)) / besselI0(KAISER_BETA);

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50 && term > sum * 1e-12; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export function concat(parts: Float32Array[]): Float32Array {
  const filled = parts.filter((part) => part.length > 0);
  if (filled.length === 1 && filled[0]) return filled[0];
  const out = new Float32Array(filled.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of filled) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

import { invalidAudio } from "./errors.ts";
import { g711Table } from "./g711.ts";

/**
 * How one sample is stored. Little-endian unless the name says `be`; 8-bit samples are unsigned in
 * WAV (`u8`) and signed as Python's audioop reads them (`s8`, Wyoming's).
 */
export type SampleEncoding =
  | "u8"
  | "s8"
  | "s16le"
  | "s16be"
  | "s24le"
  | "s24be"
  | "s32le"
  | "f32le"
  | "f64le"
  | "mulaw"
  | "alaw";

/** Interleaved uncompressed audio: what a WAV header or a raw PCM content type describes. */
export interface PcmLayout {
  encoding: SampleEncoding;
  channels: number;
  sampleRate: number;
}

export const BYTES_PER_SAMPLE: Record<SampleEncoding, number> = {
  u8: 1,
  s8: 1,
  s16le: 2,
  s16be: 2,
  s24le: 3,
  s24be: 3,
  s32le: 4,
  f32le: 4,
  f64le: 8,
  mulaw: 1,
  alaw: 1,
};

// Below 4 kHz (2 kHz of bandwidth) recognition is hopeless; no recorder writes above 384 kHz.
export const MIN_SAMPLE_RATE = 4000;
export const MAX_SAMPLE_RATE = 384_000;

export function checkSampleRate(rate: number, source: string): void {
  if (Number.isInteger(rate) && rate >= MIN_SAMPLE_RATE && rate <= MAX_SAMPLE_RATE) return;
  throw invalidAudio(
    `${source} declares a sample rate of ${rate} Hz; accepted rates are ${MIN_SAMPLE_RATE}–${MAX_SAMPLE_RATE} Hz`,
  );
}

export const frameBytes = (layout: PcmLayout) => BYTES_PER_SAMPLE[layout.encoding] * layout.channels;

/** Mono Float32 at the source rate, plus how many frames held no finite value (NaN/Inf floats). */
export interface MonoPcm {
  samples: Float32Array;
  invalidFrames: number;
}

/**
 * Converts interleaved PCM to mono Float32 in [-1, 1], averaging the channels. The frame count
 * comes from `bytes.length` (the bytes actually present); a trailing partial frame is ignored.
 */
export function pcmToMono(bytes: Uint8Array, layout: PcmLayout): MonoPcm {
  const { encoding, channels } = layout;
  const frames = Math.floor(bytes.length / frameBytes(layout));
  const count = frames * channels;
  switch (encoding) {
    case "u8":
      return integers(bytes.subarray(0, count), channels, frames, 1 / 128, 128);
    case "s8":
      return integers(new Int8Array(bytes.buffer, bytes.byteOffset, count), channels, frames, 1 / 128, 0);
    case "s16le": {
      const view = new Int16Array(...aligned(bytes, count, 2));
      return channels === 1 ? s16Mono(view) : integers(view, channels, frames, 1 / 32768, 0);
    }
    case "s32le":
      return integers(new Int32Array(...aligned(bytes, count, 4)), channels, frames, 1 / 2147483648, 0);
    case "f32le":
      return floats(new Float32Array(...aligned(bytes, count, 4)), channels, frames);
    case "f64le":
      return floats(new Float64Array(...aligned(bytes, count, 8)), channels, frames);
    case "mulaw":
    case "alaw":
      return floats(mapBytes(bytes.subarray(0, count), g711Table(encoding)), channels, frames);
    default:
      return integers(bigOrPacked(bytes, count, encoding), channels, frames, 1, 0);
  }
}

type ViewArgs = [buffer: ArrayBufferLike, byteOffset: number, length: number];

/** Typed-array view arguments for `count` samples, copying first when the offset is unaligned. */
function aligned(bytes: Uint8Array, count: number, size: number): ViewArgs {
  const source = bytes.byteOffset % size === 0 ? bytes : bytes.slice(0, count * size);
  return [source.buffer, source.byteOffset, count];
}

/** The common dictation input (16-bit mono) gets its own monomorphic loop: ~4× faster. */
function s16Mono(src: Int16Array): MonoPcm {
  const samples = new Float32Array(src.length);
  for (let i = 0; i < src.length; i++) samples[i] = (src[i] ?? 0) / 32768;
  return { samples, invalidFrames: 0 };
}

function integers(
  src: ArrayLike<number>,
  channels: number,
  frames: number,
  scale: number,
  bias: number,
): MonoPcm {
  const samples = new Float32Array(frames);
  if (channels === 1) {
    for (let i = 0; i < frames; i++) samples[i] = ((src[i] ?? bias) - bias) * scale;
    return { samples, invalidFrames: 0 };
  }
  const frameScale = scale / channels;
  const frameBias = bias * channels;
  for (let f = 0, j = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++, j++) sum += src[j] ?? bias;
    samples[f] = (sum - frameBias) * frameScale;
  }
  return { samples, invalidFrames: 0 };
}

/** Float sources are untrusted: NaN/Inf become silence, overs are clipped so no stage sees Inf. */
function floats(src: ArrayLike<number>, channels: number, frames: number): MonoPcm {
  const samples = new Float32Array(frames);
  let invalidFrames = 0;
  for (let f = 0, j = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++, j++) sum += src[j] ?? 0;
    let value = sum / channels;
    if (!(value >= -1 && value <= 1)) {
      if (Number.isFinite(value)) value = value > 0 ? 1 : -1;
      else {
        value = 0;
        invalidFrames++;
      }
    }
    samples[f] = value;
  }
  return { samples, invalidFrames };
}

function mapBytes(bytes: Uint8Array, table: Float32Array): Float32Array {
  const out = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = table[bytes[i] ?? 0] ?? 0;
  return out;
}

/** Big-endian and 24-bit samples, already scaled to [-1, 1]. */
function bigOrPacked(bytes: Uint8Array, count: number, encoding: SampleEncoding): Float32Array {
  const out = new Float32Array(count);
  const b = (i: number) => bytes[i] ?? 0;
  if (encoding === "s16be") {
    for (let i = 0, o = 0; i < count; i++, o += 2) out[i] = (((b(o) << 24) | (b(o + 1) << 16)) >> 16) / 32768;
  } else if (encoding === "s24le") {
    for (let i = 0, o = 0; i < count; i++, o += 3)
      out[i] = (((b(o + 2) << 24) | (b(o + 1) << 16) | (b(o) << 8)) >> 8) / 8388608;
  } else if (encoding === "s24be") {
    for (let i = 0, o = 0; i < count; i++, o += 3)
      out[i] = (((b(o) << 24) | (b(o + 1) << 16) | (b(o + 2) << 8)) >> 8) / 8388608;
  } else {
    throw new Error(`no converter for ${encoding}`);
  }
  return out;
}

/** Averages decoder output (one array per channel) to mono, with the same float sanitising. */
export function planarToMono(channels: Float32Array[]): MonoPcm {
  const first = channels[0];
  if (!first) return { samples: new Float32Array(0), invalidFrames: 0 };
  if (channels.length === 1) return floats(first, 1, first.length);
  const mixed = new Float32Array(first.length);
  const weight = 1 / channels.length;
  for (const channel of channels) {
    for (let i = 0; i < mixed.length; i++) mixed[i] = (mixed[i] ?? 0) + (channel[i] ?? 0) * weight;
  }
  return floats(mixed, 1, mixed.length);
}

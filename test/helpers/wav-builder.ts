// Builds WAV files byte by byte, so tests can state exactly which header field lies.

export interface Chunk {
  id: string;
  body: Uint8Array;
  /** Written instead of body.length: a lying size. */
  declaredSize?: number;
  /** Leave out the pad byte an odd-sized chunk should have (a common writer bug). */
  noPad?: boolean;
}

export const ascii = (text: string) => new TextEncoder().encode(text);

/** RIFF/WAVE file from chunks in order; `riffSize` overrides the (ignored) RIFF size. */
export function riff(chunks: Chunk[], options: { magic?: string; riffSize?: number } = {}): Uint8Array {
  const parts: Uint8Array[] = [ascii(options.magic ?? "RIFF"), u32(0), ascii("WAVE")];
  for (const chunk of chunks) {
    parts.push(ascii(chunk.id), u32(chunk.declaredSize ?? chunk.body.length), chunk.body);
    if (chunk.body.length % 2 === 1 && !chunk.noPad) parts.push(new Uint8Array(1));
  }
  const bytes = join(parts);
  new DataView(bytes.buffer).setUint32(4, options.riffSize ?? bytes.length - 8, true);
  return bytes;
}

export interface FmtFields {
  tag: number;
  channels: number;
  rate: number;
  bits: number;
  blockAlign?: number;
  /** WAVE_FORMAT_EXTENSIBLE sub-format tag (1 PCM, 3 float); sets tag 0xFFFE. */
  subformat?: number;
  validBits?: number;
  guidTail?: number[];
}

const KSDATAFORMAT_TAIL = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71];

export function fmt(fields: FmtFields): Chunk {
  const extensible = fields.subformat !== undefined;
  const body = new Uint8Array(extensible ? 40 : 16);
  const view = new DataView(body.buffer);
  const blockAlign = fields.blockAlign ?? (fields.channels * fields.bits) / 8;
  view.setUint16(0, extensible ? 0xfffe : fields.tag, true);
  view.setUint16(2, fields.channels, true);
  view.setUint32(4, fields.rate, true);
  view.setUint32(8, fields.rate * blockAlign, true);
  view.setUint16(12, blockAlign, true);
  view.setUint16(14, fields.bits, true);
  if (extensible) {
    view.setUint16(16, 22, true);
    view.setUint16(18, fields.validBits ?? fields.bits, true);
    view.setUint32(20, 0, true);
    view.setUint16(24, fields.subformat ?? 1, true);
    body.set(fields.guidTail ?? KSDATAFORMAT_TAIL, 26);
  }
  return { id: "fmt ", body };
}

export const data = (body: Uint8Array, declaredSize?: number): Chunk => ({ id: "data", body, declaredSize });

/** 16-bit little-endian PCM of `samples` (one channel, or interleave first). */
export function s16(samples: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) {
    view.setInt16(i * 2, Math.round(Math.max(-1, Math.min(1, samples[i] ?? 0)) * 32767), true);
  }
  return out;
}

export function f32(samples: ArrayLike<number>): Uint8Array {
  return new Uint8Array(Float32Array.from(samples).buffer);
}

/** A plain 16-bit mono WAV. */
export const wav16 = (samples: ArrayLike<number>, rate = 16000) =>
  riff([fmt({ tag: 1, channels: 1, rate, bits: 16 }), data(s16(samples))]);

export function sine(rate: number, frequency: number, seconds: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / rate);
  return out;
}

export function u32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}

export function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

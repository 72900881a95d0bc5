// Seed files and mutations for the WAV fuzz test, kept apart so a failing case can be replayed
// from a script: same seed, same sequence.
import { type Chunk, data, f32, fmt, join, riff, s16, sine, u32 } from "../../helpers/wav-builder.ts";

/** Deterministic PRNG (mulberry32): a failure names its case number and replays exactly. */
export function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return { next, int: (below: number) => Math.floor(next() * below) };
}
export type Random = ReturnType<typeof random>;

export function seeds(): Uint8Array[] {
  const tone = sine(16000, 440, 0.05);
  const stereo = new Float32Array(tone.length * 2).map((_, i) => tone[i >> 1] ?? 0);
  const list: Chunk = { id: "LIST", body: new Uint8Array(11) };
  const u8 = Uint8Array.from(tone, (v) => Math.round(v * 127 + 128));
  return [
    riff([fmt({ tag: 1, channels: 1, rate: 16000, bits: 16 }), data(s16(tone))]),
    riff([list, fmt({ tag: 1, channels: 2, rate: 44100, bits: 16 }), data(s16(stereo)), list]),
    riff([fmt({ tag: 1, channels: 1, rate: 8000, bits: 8 }), data(u8)]),
    riff([fmt({ tag: 1, channels: 2, rate: 48000, bits: 24, subformat: 1 }), data(new Uint8Array(2400))]),
    riff([
      fmt({ tag: 3, channels: 1, rate: 22050, bits: 32 }),
      { id: "fact", body: u32(800) },
      data(f32(tone)),
    ]),
    riff([
      fmt({ tag: 3, channels: 1, rate: 16000, bits: 64 }),
      data(new Uint8Array(new Float64Array(tone).buffer)),
    ]),
    riff([fmt({ tag: 7, channels: 1, rate: 8000, bits: 8 }), data(u8)]),
    riff(
      [
        { id: "ds64", body: new Uint8Array(28) },
        fmt({ tag: 1, channels: 1, rate: 16000, bits: 16 }),
        data(s16(tone), 0xffffffff),
      ],
      { magic: "RF64" },
    ),
  ];
}

const EXTREMES = [0, 1, 2, 0xff, 0xffff, 0xfffe, 0x7fffffff, 0x80000000, 0xffffffff, 44100, 3];

export function mutate(source: Uint8Array, rng: Random): Uint8Array {
  let bytes: Uint8Array = source.slice();
  const rounds = 1 + rng.int(3);
  for (let round = 0; round < rounds; round++) {
    const view = new DataView(bytes.buffer);
    const at = rng.int(Math.min(bytes.length, rng.next() < 0.8 ? 80 : bytes.length));
    switch (rng.int(6)) {
      case 0:
        bytes[at] = (bytes[at] ?? 0) ^ (1 << rng.int(8));
        break;
      case 1:
        if (at + 4 <= bytes.length) view.setUint32(at, EXTREMES[rng.int(EXTREMES.length)] ?? 0, true);
        break;
      case 2:
        if (at + 2 <= bytes.length)
          view.setUint16(at, (EXTREMES[rng.int(EXTREMES.length)] ?? 0) & 0xffff, true);
        break;
      case 3:
        bytes = bytes.slice(0, rng.int(bytes.length + 1));
        break;
      case 4:
        bytes = join([
          bytes.subarray(0, at),
          Uint8Array.from({ length: rng.int(24) }, () => rng.int(256)),
          bytes.subarray(at),
        ]);
        break;
      default: {
        const from = rng.int(bytes.length);
        bytes = join([bytes.subarray(0, at), bytes.subarray(from, from + rng.int(48)), bytes.subarray(at)]);
      }
    }
  }
  return bytes;
}

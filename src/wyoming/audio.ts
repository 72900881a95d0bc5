import { type PcmLayout, pcmToMono, type SampleEncoding } from "../dictation/audio/pcm.ts";
import { createResampler } from "../dictation/audio/resample.ts";
import type { AudioFormat } from "./events.ts";

// Wyoming audio is raw little-endian PCM whose samples are signed integers of `width` bytes, as
// Python's audioop reads them (the library converts with audioop.lin2lin and ratecv): 8-bit
// samples are signed too, unlike 8-bit WAV.
const encodings: Record<AudioFormat["width"], SampleEncoding> = {
  1: "u8",
  2: "s16le",
  3: "s24le",
  4: "s32le",
};

const sameFormat = (a: AudioFormat, b: AudioFormat) =>
  a.rate === b.rate && a.width === b.width && a.channels === b.channels;

/** Signed 8-bit to the unsigned bytes the u8 converter reads: the sign bit flipped. */
function signedToUnsigned(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = (bytes[i] ?? 0) ^ 0x80;
  return out;
}

/**
 * Audio chunks to 16 kHz mono, in order: channels averaged, the rate converted with svc's
 * resampler. A chunk need not hold whole frames (1024 bytes of 24-bit audio do not): the bytes of
 * a frame split between chunks wait for the rest.
 */
export function createChunkDecoder(format: AudioFormat) {
  const layout: PcmLayout = {
    encoding: encodings[format.width],
    channels: format.channels,
    sampleRate: format.rate,
  };
  const frameBytes = format.width * format.channels;
  const resampler = createResampler(format.rate);
  let carry = new Uint8Array(0);
  return {
    format,
    /** Whether a chunk in `other` can go through this decoder. */
    fits: (other: AudioFormat) => sameFormat(format, other),
    decode(bytes: Uint8Array): Float32Array {
      const input = carry.length > 0 ? Buffer.concat([carry, bytes]) : bytes;
      const whole = input.length - (input.length % frameBytes);
      carry = input.slice(whole);
      const frames = input.subarray(0, whole);
      if (frames.length === 0) return new Float32Array(0);
      return resampler.push(
        pcmToMono(format.width === 1 ? signedToUnsigned(frames) : frames, layout).samples,
      );
    },
    /** The resampler's last samples; a partial frame left at the end is dropped. */
    flush(): Float32Array {
      carry = new Uint8Array(0);
      return resampler.flush();
    },
  };
}

export type ChunkDecoder = ReturnType<typeof createChunkDecoder>;

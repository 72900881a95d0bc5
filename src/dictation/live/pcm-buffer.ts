import { SAMPLE_RATE } from "../audio/rate.ts";

/** A growing 16 kHz recording that hands out stretches of it by time. */
export function createPcmBuffer(initialSeconds = 10) {
  let data = new Float32Array(initialSeconds * SAMPLE_RATE);
  let length = 0;
  return {
    get length() {
      return length;
    },
    append(pcm: Float32Array): void {
      if (length + pcm.length > data.length) {
        const grown = new Float32Array(Math.max(data.length * 2, length + pcm.length));
        grown.set(data.subarray(0, length));
        data = grown;
      }
      data.set(pcm, length);
      length += pcm.length;
    },
    /** A copy of the audio from `startMs` to `endMs`, clamped to what has arrived. */
    slice(startMs: number, endMs: number): Float32Array {
      const at = (ms: number) => Math.min(length, Math.max(0, Math.round((ms / 1000) * SAMPLE_RATE)));
      return data.slice(at(startMs), at(endMs));
    },
  };
}

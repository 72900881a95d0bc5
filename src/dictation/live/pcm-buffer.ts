import { SAMPLE_RATE } from "../audio/index.ts";

/**
 * A growing 16 kHz recording that hands out stretches of it by time and forgets what is no longer
 * needed: a live dictation keeps only the audio a piece or a guess may still ask for, so an hour
 * of mostly silence costs what its open piece costs, not an hour of samples.
 */
export function createPcmBuffer(initialSeconds = 10) {
  let data = new Float32Array(initialSeconds * SAMPLE_RATE);
  /** Samples forgotten from the start; `data[0]` is sample `dropped` of the recording. */
  let dropped = 0;
  /** Samples held in `data`. */
  let held = 0;
  const sampleAt = (ms: number) => Math.round((ms / 1000) * SAMPLE_RATE);
  return {
    /** Samples appended since the start, forgotten ones included. */
    get length() {
      return dropped + held;
    },
    /** Samples held in memory now. */
    get held() {
      return held;
    },
    append(pcm: Float32Array): void {
      if (held + pcm.length > data.length) {
        const grown = new Float32Array(Math.max(data.length * 2, held + pcm.length));
        grown.set(data.subarray(0, held));
        data = grown;
      }
      data.set(pcm, held);
      held += pcm.length;
    },
    /** Forgets the audio before `ms`; later slices that reach back before it start there. */
    dropBefore(ms: number): void {
      const cut = Math.min(held, sampleAt(ms) - dropped);
      if (cut <= 0) return;
      data.copyWithin(0, cut, held);
      held -= cut;
      dropped += cut;
      // Give memory back once the open stretch is much smaller than what was grown for it.
      if (data.length > initialSeconds * SAMPLE_RATE && held * 4 < data.length) {
        data = data.slice(0, Math.max(held * 2, initialSeconds * SAMPLE_RATE));
      }
    },
    /** A copy of the audio from `startMs` to `endMs`, clamped to what is held. */
    slice(startMs: number, endMs: number): Float32Array {
      const at = (ms: number) => Math.min(held, Math.max(0, sampleAt(ms) - dropped));
      return data.slice(at(startMs), at(endMs));
    },
  };
}

import { FRAME_MS, type SpeechRegion } from "./types.ts";

/** Silero's usual hysteresis: speech starts above `threshold` and ends below `threshold - 0.15`. */
export interface RegionOptions {
  threshold: number;
  /** Shorter bursts (a click, a cough) are not speech. */
  minSpeechMs: number;
  /** A pause must last this long to end a region; shorter ones are gaps between words. */
  minSilenceMs: number;
  /** Added on both sides, so the engine hears the onset and the decay of the first and last word. */
  padMs: number;
}

export const defaultRegionOptions: RegionOptions = {
  threshold: 0.5,
  minSpeechMs: 250,
  minSilenceMs: 200,
  padMs: 150,
};

/**
 * Turns per-frame probabilities into speech regions as the frames arrive: `push` returns a region
 * once the pause after it is long enough, `end` closes the one still open.
 */
export function createRegionTracker(options: RegionOptions = defaultRegionOptions) {
  const negThreshold = Math.max(options.threshold - 0.15, 0.01);
  let frames = 0;
  let start: number | null = null;
  let silenceFrom: number | null = null;
  let lastEnd = 0;

  function close(endMs: number, audioEndMs: number): SpeechRegion | null {
    const begun = start ?? 0;
    start = null;
    silenceFrom = null;
    if (endMs - begun < options.minSpeechMs) return null;
    const region = {
      startMs: Math.max(0, lastEnd, begun - options.padMs),
      endMs: Math.min(audioEndMs, endMs + options.padMs),
    };
    lastEnd = region.endMs;
    return region;
  }

  return {
    push(probability: number): SpeechRegion | null {
      const at = frames * FRAME_MS;
      frames++;
      if (probability >= options.threshold) {
        silenceFrom = null;
        start ??= at;
        return null;
      }
      if (start === null || probability >= negThreshold) return null;
      silenceFrom ??= at;
      return at + FRAME_MS - silenceFrom >= options.minSilenceMs ? close(silenceFrom, at + FRAME_MS) : null;
    },
    /** True once the open region has lasted long enough to count, before it closes. */
    get confirmed(): boolean {
      return start !== null && (silenceFrom ?? frames * FRAME_MS) - start >= options.minSpeechMs;
    },
    /**
     * Where the region being spoken starts (padded, as `push` will report it), or `null` while
     * nobody speaks.
     */
    get openStartMs(): number | null {
      return start === null ? null : Math.max(0, lastEnd, start - options.padMs);
    },
    /**
     * Where the open region will end (padded, as `push` will report it) if the pause now under way
     * lasts long enough to close it; `null` while speech goes on or nobody speaks.
     */
    get pauseEndMs(): number | null {
      return start === null || silenceFrom === null ? null : silenceFrom + options.padMs;
    },
    /** No region closed from now on starts before this: the audio before it is never asked for. */
    get horizonMs(): number {
      return Math.max(0, lastEnd, (start ?? frames * FRAME_MS) - options.padMs);
    },
    /** Closes the open region at the end of the audio (`audioMs` long). */
    end(audioMs: number): SpeechRegion | null {
      return start === null ? null : close(silenceFrom ?? audioMs, audioMs);
    },
  };
}

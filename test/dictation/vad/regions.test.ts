import { describe, expect, test } from "bun:test";
import { createRegionTracker } from "../../../src/dictation/vad/regions.ts";
import type { SpeechRegion } from "../../../src/dictation/vad/types.ts";

// The hysteresis on its own, fed probabilities frame by frame (32 ms each).

const options = { threshold: 0.5, minSpeechMs: 250, minSilenceMs: 200, padMs: 60 };

/** Feeds `frames` probabilities and ends the stream; answers each region with the frame that closed it. */
function track(probabilities: number[]): { region: SpeechRegion; frame: number | "end" }[] {
  const tracker = createRegionTracker(options);
  const out: { region: SpeechRegion; frame: number | "end" }[] = [];
  probabilities.forEach((p, frame) => {
    const region = tracker.push(p);
    if (region) out.push({ region, frame });
  });
  const last = tracker.end(probabilities.length * 32);
  if (last) out.push({ region: last, frame: "end" });
  return out;
}

const run = (value: number, frames: number) => Array<number>(frames).fill(value);

describe("createRegionTracker", () => {
  test("a region starts above the threshold and closes after 200 ms below threshold - 0.15, padded", () => {
    // Frames 10–29 speech (320–960 ms), then silence.
    const result = track([...run(0, 10), ...run(0.9, 20), ...run(0.1, 20)]);
    // The pause counts from frame 30; its seventh frame (224 ms) closes the region.
    expect(result).toEqual([{ region: { startMs: 260, endMs: 1020 }, frame: 36 }]);
  });

  test("dips shorter than the minimum silence, or above threshold - 0.15, stay inside one region", () => {
    const result = track([
      ...run(0.9, 10),
      ...run(0.1, 5), // 160 ms: too short to end it
      ...run(0.9, 10),
      ...run(0.4, 20), // between 0.35 and 0.5: neither speech nor silence
      ...run(0.9, 5),
      ...run(0, 10),
    ]);
    expect(result.map((r) => r.region)).toEqual([{ startMs: 0, endMs: 50 * 32 + 60 }]);
  });

  test("bursts shorter than 250 ms are not speech", () => {
    expect(track([...run(0, 5), ...run(0.95, 7), ...run(0, 20), ...run(0.95, 3)])).toEqual([]);
  });

  test("two regions 224 ms apart stay two, padded apart; the last is cut at the end of the audio", () => {
    const result = track([...run(0.9, 10), ...run(0, 7), ...run(0.9, 10)]);
    expect(result).toEqual([
      { region: { startMs: 0, endMs: 380 }, frame: 16 },
      { region: { startMs: 484, endMs: 27 * 32 }, frame: "end" },
    ]);
  });

  test("confirmed turns true once the open region has lasted 250 ms", () => {
    const tracker = createRegionTracker(options);
    const states: boolean[] = [];
    for (const p of [0, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]) {
      tracker.push(p);
      states.push(tracker.confirmed);
    }
    // Speech from 32 ms; 250 ms later is during the ninth frame, confirmed when it ends (288 ms).
    expect(states).toEqual([false, false, false, false, false, false, false, false, true, true]);
  });

  test("the open region's start and the horizon are where the next region can begin", () => {
    const tracker = createRegionTracker(options);
    for (const p of run(0, 10)) tracker.push(p);
    // Nobody speaks: a region could still begin one pad before the next frame (320 − 60 ms).
    expect(tracker.openStartMs).toBeNull();
    expect(tracker.horizonMs).toBe(260);
    for (const p of run(0.9, 20)) tracker.push(p);
    expect(tracker.openStartMs).toBe(260);
    expect(tracker.horizonMs).toBe(260);
    let closed: SpeechRegion | null = null;
    for (const p of run(0.1, 40)) {
      const region = tracker.push(p);
      if (region) closed = region;
    }
    expect(closed).toEqual({ startMs: 260, endMs: 1020 });
    // After it, never before its end, even though the pad would reach back further.
    expect(tracker.openStartMs).toBeNull();
    expect(tracker.horizonMs).toBe(70 * 32 - 60);
    tracker.push(0.9);
    expect(tracker.openStartMs).toBe(70 * 32 - 60);
  });
});

import { describe, expect, test } from "bun:test";
import { createCatchUp } from "../../src/desktop/catch-up.ts";
import { isAppError } from "../../src/errors.ts";

// The catch-up holds what the desktop app sends faster than dictate_max_speed × real time and
// feeds it at that pace: the driver's own check (one second's head start) never fires.

const bytesPerSecond = 32_000;
const frame = new Uint8Array(2560); // 80 ms

function watched(maxSpeed: number, maxSeconds = 300) {
  const startedAt = performance.now();
  const fed: { seconds: number; at: number }[] = [];
  let total = 0;
  const failures: unknown[] = [];
  const catchUp = createCatchUp({
    feed: (bytes) => {
      total += bytes.byteLength / bytesPerSecond;
      fed.push({ seconds: total, at: (performance.now() - startedAt) / 1000 });
    },
    maxSpeed: () => maxSpeed,
    maxSeconds: () => maxSeconds,
    bytesPerSecond,
    fail: (error) => failures.push(error),
  });
  return { catchUp, fed, failures, total: () => total };
}

describe("createCatchUp", () => {
  test("frames at real-time pace pass straight through", () => {
    const { catchUp, fed } = watched(4);
    for (let i = 0; i < 10; i++) catchUp.push(frame);
    expect(fed).toHaveLength(10);
  });

  test("a burst is held and fed within maxSpeed × (elapsed + 1 s), then drained", async () => {
    const { catchUp, fed, total } = watched(4);
    // 6 s of audio at once: 4 s may go at once, the rest follows at 4× real time.
    for (let i = 0; i < 75; i++) catchUp.push(frame);
    expect(total()).toBeLessThanOrEqual(4);
    await catchUp.drained();
    expect(total()).toBeCloseTo(6, 5);
    for (const { seconds, at } of fed) expect(seconds).toBeLessThanOrEqual(4 * (at + 1) + 1e-9);
  });

  test("more held audio than a dictation may last is refused at once with audio_too_long", () => {
    const { catchUp } = watched(1, 2);
    let refused: unknown;
    try {
      for (let i = 0; i < 40; i++) catchUp.push(frame);
    } catch (error) {
      refused = error;
    }
    expect(isAppError(refused) && refused.code).toBe("audio_too_long");
  });

  test("clear drops what is held and settles a wait for it", async () => {
    const { catchUp, total } = watched(1);
    for (let i = 0; i < 40; i++) catchUp.push(frame);
    const drained = catchUp.drained();
    catchUp.clear();
    await drained;
    expect(total()).toBeLessThan(1);
  });
});

import { describe, expect, test } from "bun:test";
import { FLOOR_DB, isNearSilent, measureLevel } from "../../../src/dictation/audio/level.ts";
import { sine } from "../../helpers/wav-builder.ts";

describe("measureLevel", () => {
  test("reports a half-scale sine at -6 dBFS peak and -9 dBFS RMS", () => {
    const level = measureLevel(sine(16000, 440, 1));
    expect(level.peakDb).toBeCloseTo(-6.02, 1);
    expect(level.rmsDb).toBeCloseTo(-9.03, 1);
    expect(level.loudestWindowDb).toBeCloseTo(-9.03, 0);
  });

  test("floors digital silence and empty input at FLOOR_DB instead of -Infinity", () => {
    for (const pcm of [new Float32Array(16000), new Float32Array(0)]) {
      expect(measureLevel(pcm)).toEqual({ rmsDb: FLOOR_DB, peakDb: FLOOR_DB, loudestWindowDb: FLOOR_DB });
    }
  });
});

describe("isNearSilent", () => {
  const noise = (seconds: number, amplitude: number) => {
    let seed = 7;
    return new Float32Array(16000 * seconds).map(() => {
      seed = (seed * 1_103_515_245 + 12_345) >>> 0;
      return (seed / 2 ** 32 - 0.5) * 2 * amplitude;
    });
  };

  test("is true for microphone hiss and false for speech-level sound", () => {
    expect(isNearSilent(noise(2, 0.001))).toBe(true);
    expect(isNearSilent(sine(16000, 300, 1, 0.05))).toBe(false);
  });

  test("still hears one short word in a long quiet recording", () => {
    const recording = noise(30, 0.0005);
    recording.set(sine(16000, 300, 0.3, 0.1), 16000 * 12);
    expect(measureLevel(recording).rmsDb).toBeLessThan(-35);
    expect(isNearSilent(recording)).toBe(false);
  });

  test("honours the threshold it is given", () => {
    const quiet = sine(16000, 300, 1, 0.01);
    expect(isNearSilent(quiet, -50)).toBe(false);
    expect(isNearSilent(quiet, -30)).toBe(true);
  });
});

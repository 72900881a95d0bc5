import { describe, expect, test } from "bun:test";
import { concat, createResampler, resample } from "../../../src/dictation/audio/resample.ts";
import { sine } from "../../helpers/wav-builder.ts";
import { fitTone, maxDifference, rms } from "./signal.ts";

const db = (ratio: number) => 20 * Math.log10(ratio);

describe("resample to 16 kHz", () => {
  test.each([44100, 48000, 22050, 96000, 8000, 11025, 44101])(
    "keeps a 1 kHz sine's frequency and amplitude from %i Hz",
    (rate) => {
      const output = resample(sine(rate, 1000, 0.5), rate);
      expect(output.length).toBe(Math.ceil((Math.round(rate * 0.5) * 16000) / rate));
      const tone = fitTone(output, 16000, 1000);
      expect(Math.abs(db(tone.amplitude / 0.5))).toBeLessThan(0.05);
      expect(tone.residualRms).toBeLessThan(1e-3);
    },
  );

  test("keeps the speech band flat up to 6 kHz", () => {
    for (const frequency of [100, 300, 3000, 5000, 6000]) {
      const tone = fitTone(resample(sine(48000, frequency, 0.5), 48000), 16000, frequency);
      expect(Math.abs(db(tone.amplitude / 0.5))).toBeLessThan(0.1);
    }
  });

  // A 12 kHz tone at 48 kHz folds onto 4 kHz if the signal is only decimated (or linearly
  // interpolated): a real low-pass removes it before it can alias into the speech band.
  test.each([
    [48000, 12000],
    [48000, 9000],
    [44100, 10000],
    [44100, 20000],
    [96000, 30000],
  ])("suppresses %i Hz input's %i Hz tone by at least 75 dB instead of aliasing it", (rate, frequency) => {
    const output = resample(sine(rate, frequency, 0.5), rate);
    expect(db(rms(output.subarray(800, -800)) / (0.5 / Math.SQRT2))).toBeLessThan(-75);
  });

  test("dropping samples would alias the 12 kHz tone: the test above can tell", () => {
    const input = sine(48000, 12000, 0.5, 0.5);
    const dropped = new Float32Array(input.length / 3).map((_, i) => input[i * 3 + 1] ?? 0);
    expect(db(rms(dropped) / (0.5 / Math.SQRT2))).toBeGreaterThan(-10);
  });

  test("gives the same samples pushed in uneven chunks as in one piece", () => {
    for (const rate of [44100, 48000, 8000]) {
      const input = sine(rate, 700, 0.73);
      const streaming = createResampler(rate);
      const parts: Float32Array[] = [];
      for (let at = 0, size = 1; at < input.length; at += size, size = (size * 7) % 5003) {
        parts.push(streaming.push(input.subarray(at, at + size)));
      }
      parts.push(streaming.flush());
      expect(maxDifference(concat(parts), resample(input, rate))).toBe(0);
    }
  });

  test("passes 16 kHz through untouched", () => {
    const input = sine(16000, 440, 0.1);
    expect(resample(input, 16000)).toBe(input);
  });

  test("handles input shorter than the filter", () => {
    expect(resample(new Float32Array(3).fill(0.5), 48000).length).toBe(1);
    expect(resample(new Float32Array(0), 44100).length).toBe(0);
  });
});
